package config

import (
	"strings"
	"testing"
)

func TestFilesConfig(t *testing.T) {
	cfg, err := Load(writeConfig(t, `
files: ["/var/log/sglang/*.log"]
docker:
  enabled: true
  include: {images: ["lmsysorg/sglang:*", "vllm/vllm-openai:*"]}
kubernetes:
  enabled: true
  root: /var/log/pods
  include: {namespaces: [inference]}
  exclude: {containers: ["istio-proxy"]}
file_options: {max_open: 64, rotate_wait: 10s}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(cfg.FileGlobs(), " ")
	want := "/var/log/sglang/*.log /var/lib/docker/containers/*/*-json.log /var/log/pods/*/*/*.log"
	if got != want {
		t.Fatalf("globs %q, want %q", got, want)
	}
	if cfg.ReadsJournal() {
		t.Error("files without journal keys should not read the journal")
	}
	cfg.Journal.Units = []string{"sglang.service"}
	if !cfg.ReadsJournal() {
		t.Error("journal.units set: the journal is read beside the files")
	}
	cfg.Journal.Units = nil
	cfg.Journal.Containers = []string{"sglang-*"}
	if !cfg.ReadsJournal() {
		t.Error("journal.containers set: the journal is read beside the files")
	}
	if d := Default(); !d.ReadsJournal() || len(d.FileGlobs()) != 0 {
		t.Error("the default reads the journal and no files")
	}
}

func TestFilesConfigErrorsNameTheKey(t *testing.T) {
	for _, c := range []struct{ body, key string }{
		{"files: ['[']\n", "files[0]"},
		{"files: ['']\n", "files[0]"},
		{"kubernetes:\n  include: {images: [x]}\n", "kubernetes.include.images"},
		{"docker:\n  exclude: {namespaces: [x]}\n", "docker.exclude.namespaces"},
		{"docker:\n  include: {containers: ['[']}\n", "docker.include.containers[0]"},
		{"docker:\n  root: ''\n", "docker.root"},
		{"file_options: {max_open: -1}\n", "file_options.max_open"},
		{"file_options: {rotate_wait: -1s}\n", "file_options.rotate_wait"},
	} {
		_, err := Load(writeConfig(t, c.body))
		if err == nil || !strings.Contains(err.Error(), c.key+":") {
			t.Errorf("%q: %v, want an error naming %s", c.body, err, c.key)
		}
	}
}
