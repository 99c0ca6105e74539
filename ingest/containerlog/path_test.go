package containerlog

import (
	"os"
	"path/filepath"
	"testing"
)

const dockerID = "3f4e8a1b2c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7"

func TestFromPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		want Meta
		ok   bool
	}{
		{"/var/log/pods/inference_sglang-0_8d2c3f1e-0000-4000-8000-000000000001/engine/0.log",
			Meta{Container: "engine", Namespace: "inference", Pod: "sglang-0"}, true},
		{"/var/log/pods/inference_sglang-0_uid/engine/12.log", Meta{Container: "engine", Namespace: "inference", Pod: "sglang-0"}, true},
		{"/var/lib/docker/containers/" + dockerID + "/" + dockerID + "-json.log", Meta{Container: dockerID[:12], ID: dockerID}, true},
		// A rotated sibling is the same container's; a different id in the name is not Docker's layout.
		{"/var/log/pods/inference_sglang-0_uid/engine/0.log.20261120-090000", Meta{Container: "engine", Namespace: "inference", Pod: "sglang-0"}, true},
		{"/var/lib/docker/containers/" + dockerID + "/" + dockerID + "-json.log.2", Meta{Container: dockerID[:12], ID: dockerID}, true},
		{"/var/log/pods/inference_sglang-0_uid/engine/0.log.gz", Meta{}, false},
		{"/var/log/pods/inference_sglang-0_uid/engine/0.log.2026-11", Meta{}, false},
		{"/var/lib/docker/containers/other/" + dockerID + "-json.log", Meta{}, false},
		{"/var/log/pods/no-underscores/engine/0.log", Meta{}, false},
		{"/var/log/sglang/engine.log", Meta{}, false},
		{"0.log", Meta{}, false},
	} {
		got, ok := FromPath(tc.path)
		if got != tc.want || ok != tc.ok {
			t.Errorf("FromPath(%s) = %+v %v, want %+v %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
}

func TestDockerName(t *testing.T) {
	dir := filepath.Join(t.TempDir(), dockerID)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, dockerID+"-json.log")
	m, _ := FromPath(log)
	if err := DockerName(log, &m); err == nil {
		t.Fatal("no config.v2.json: want an error")
	}
	if m.Container != dockerID[:12] {
		t.Fatalf("without config the name is %q, want the short id", m.Container)
	}
	// The shape dockerd writes (abridged): Name with its leading slash, Config.Image.
	cfg := `{"StreamConfig":{},"State":{"Running":true},"ID":"` + dockerID + `","Config":{"Hostname":"3f4e8a1b2c5d","Image":"lmsysorg/sglang:v0.5.4","Labels":{}},"Name":"/sglang-tp0","Driver":"overlay2"}`
	if err := os.WriteFile(filepath.Join(dir, "config.v2.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := DockerName(log, &m); err != nil {
		t.Fatal(err)
	}
	if m.Container != "sglang-tp0" || m.Image != "lmsysorg/sglang:v0.5.4" {
		t.Fatalf("meta %+v", m)
	}
}
