//go:build linux

package journalctl

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// TestJournalctlLargeFields: fields of 2 MiB and a 16 MiB binary one (journalctl writes it in
// the export format's binary form) arrive whole, with no record counted unreadable.
func TestJournalctlLargeFields(t *testing.T) {
	dir := t.TempDir()
	sizes := []int{2 << 20, 16 << 20, 100}
	msgs := make([][]byte, len(sizes))
	for i, n := range sizes {
		msgs[i] = bytes.Repeat([]byte{'a' + byte(i)}, n)
	}
	msgs[1][1000] = 0 // binary
	path := testjournal.BuildFileFunc(t, dir, len(sizes), func(i int, e *testjournal.Entry) {
		*e = testjournal.Entry{Unit: "a.service", Message: msgs[i]}
	})
	journaltest.Aged(t, path)
	src := openJ(t, backend.Options{Dir: filepath.Dir(path), NoFollow: true, Head: true})
	got := journaltest.Drain(t, src, 10*time.Second)
	if len(got) != len(sizes) {
		t.Fatalf("read %d entries, want %d; %+v", len(got), len(sizes), src.Stats())
	}
	for i, o := range got {
		if o.Message != string(msgs[i]) {
			t.Errorf("entry %d: a %d-byte message, want %d bytes", i, len(o.Message), len(msgs[i]))
		}
	}
	if st := src.Stats(); st.Unreadable != 0 {
		t.Fatalf("%d records unreadable: %+v", st.Unreadable, st)
	}
}
