package main

import (
	"bytes"
	"encoding/json"
	"os"
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
		var out bytes.Buffer
		if err := runAnalyze(t.Context(), []string{"--format", "json", filepath.Join(dir, name)}, &out, os.Stderr); err != nil {
			t.Fatalf("analyze %s: %v", name, err)
		}
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
	// Real conmon output (six lines split in two records) against the same run's stdout.
	if got, want := report("cri-podman.log"), report("podman-raw.log"); !bytes.Equal(got, want) {
		t.Errorf("cri-podman.log: report differs from podman-raw.log's:\n got %.600s\nwant %.600s", got, want)
	}
}
