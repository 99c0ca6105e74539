package ingest

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadContainerLogs(t *testing.T) {
	for _, tc := range []struct {
		file  string
		shape Shape
	}{
		{"docker-json.log", DockerJSON}, {"cri-containerd.log", CRI}, {"cri-o.log", CRI}, {"raw.log", Raw},
	} {
		b, err := os.ReadFile(filepath.Join("containerlog", "testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if s := Detect(b); s != tc.shape {
			t.Errorf("%s: Detect = %v, want %v", tc.file, s, tc.shape)
		}
		r := NewReader(strings.NewReader(string(b)), ReaderOptions{})
		var e Entry
		n := 0
		for {
			err := r.Next(&e)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.shape != Raw && e.Time == 0 {
				t.Fatalf("%s: entry %d has no time", tc.file, n)
			}
			n++
		}
		if n != 302 || r.Stats().Bad != 0 {
			t.Errorf("%s: %d entries, %d bad; want 302 and none", tc.file, n, r.Stats().Bad)
		}
	}
}

// A damaged record in a CRI file is counted, and the rest read; the end of a partial line at
// the end of the input is returned.
func TestReadContainerDamage(t *testing.T) {
	in := "2026-11-20T09:00:00Z stderr F one\n2026-11-20T09:00:00Z garbage\n2026-11-20T09:00:00Z stderr F two\n2026-11-20T09:00:00Z stderr P three"
	r := NewReader(strings.NewReader(in), ReaderOptions{})
	var got []string
	var e Entry
	for r.Next(&e) == nil {
		got = append(got, string(e.Message))
	}
	if strings.Join(got, "|") != "one|two|three" || r.Stats().Bad != 1 {
		t.Fatalf("entries %q bad %d", got, r.Stats().Bad)
	}
}

// analyze FILE takes the container's identity from the path, as `run` does.
func TestReadContainerIdentityFromPath(t *testing.T) {
	r := NewReader(strings.NewReader("2026-11-20T09:00:00Z stderr F x\n"), ReaderOptions{Name: "/var/log/pods/inference_sglang-0_uid/engine/0.log"})
	var e Entry
	if err := r.Next(&e); err != nil {
		t.Fatal(err)
	}
	if string(e.Container) != "engine" || string(e.Namespace) != "inference" || string(e.Pod) != "sglang-0" {
		t.Fatalf("identity %q %q %q", e.Container, e.Namespace, e.Pod)
	}
}
