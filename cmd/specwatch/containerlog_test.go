package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// analyze of one engine log as Docker's json-file driver, containerd and CRI-O wrote it gives
// the report the raw log gives: the same lines, samples and series (the misread had
// two DP ranks at 1,563 and 34 samples where the log had 1,529 and 68), nothing unreadable.
func TestAnalyzeContainerLogsMatchRaw(t *testing.T) {
	dir := filepath.Join("..", "..", "ingest", "containerlog", "testdata")
	report := func(name string) []byte {
		t.Helper()
		// Each file's unit is its path (issue 29): named alike, the formats must agree.
		o, stderr, code := runCmd(t, "analyze", "--format", "json", "--label", "unit=engine", filepath.Join(dir, name))
		if code != 0 {
			t.Fatalf("analyze %s: exit %d: %s", name, code, stderr)
		}
		out := bytes.NewBufferString(o)
		// Times differ by design: a container log's entries take the record's time (when the
		// runtime wrote the line), the raw log's the line's own stamp.
		var r struct {
			Input  map[string]int64
			Series []struct {
				Labels  map[string]string
				Samples int64
				Verdict string
			}
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r)
		return b
	}
	want := report("raw.log")
	if !bytes.Contains(want, []byte(`"samples":210`)) {
		t.Fatalf("raw report lacks its 210 samples: %.300s", want)
	}
	for _, f := range []string{"docker-json.log", "cri-containerd.log", "cri-o.log"} {
		if got := report(f); !bytes.Equal(got, want) {
			t.Errorf("%s: report differs from the raw log's:\n got %.600s\nwant %.600s", f, got, want)
		}
	}
	// Real dockerd output: the same report as the container's stdout, every series named by
	// the container's name from config.v2.json.
	const id = "e4b75d0f2986c6b6bb38c87e4b1567bdfd13b792076623f29ac4d7af316f1b2d"
	got := report(filepath.Join("docker", id, id+"-json.log"))
	if !bytes.Contains(got, []byte(`"container":"sglang-sim"`)) {
		t.Errorf("the real Docker log's series lack the container's name: %.300s", got)
	}
	if got, want := bytes.ReplaceAll(got, []byte(`"container":"sglang-sim",`), nil), report("docker-sim-stdout.log"); !bytes.Equal(got, want) {
		t.Errorf("real Docker log: report differs from the container's stdout's:\n got %.600s\nwant %.600s", got, want)
	}
	// Real conmon output (six lines split in two records) against the same run's stdout.
	if got, want := report("cri-podman.log"), report("podman-raw.log"); !bytes.Equal(got, want) {
		t.Errorf("cri-podman.log: report differs from podman-raw.log's:\n got %.600s\nwant %.600s", got, want)
	}
}
