package journal

import (
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// TestJournalDamagedFiles: a directory with a good journal file, a truncated one, one that
// is not a journal file and an empty one. Every entry of the good file is read, in order;
// the bad files are reported (once each) and counted; no error stops the reader.
func TestJournalDamagedFiles(t *testing.T) {
	dir := t.TempDir()
	good := testjournal.BuildFileFunc(t, dir, 100, journaltest.Lines(0, 100, "a.service"))
	cut := testjournal.BuildFileFunc(t, dir, 2000, journaltest.Lines(100, 2000, "a.service"))
	st, _ := os.Stat(cut)
	if err := os.Truncate(cut, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.journal")
	noise := make([]byte, 64<<10)
	for i := range noise {
		noise[i] = byte(rand.Uint32())
	}
	os.WriteFile(garbage, noise, 0o644)
	empty := filepath.Join(dir, "empty.journal~")
	os.WriteFile(empty, nil, 0o644)
	for _, f := range []string{good, cut, garbage, empty} {
		journaltest.Aged(t, f)
	}
	journalBackends(t, func(t *testing.T, b Backend) {
		var warned []string
		src := openJ(t, Options{Dir: dir, Backend: b, Units: []string{"a.service"},
			Warn: func(m string) { warned = append(warned, m) }, Start: Head()})
		var got []journaltest.Owned
		var e ingest.Entry
		for {
			ok, err := src.Next(&e, 500*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			got = append(got, journaltest.Own(&e))
		}
		if len(got) < 100 {
			t.Fatalf("read %d entries, want at least the good file's 100", len(got))
		}
		journaltest.CheckSequence(t, got[:100], 100)
		for i := 100; i < len(got); i++ { // whatever libsystemd salvages of the cut file
			if journaltest.SeqOf(t, got[i].Message) != i {
				t.Fatalf("entry %d from the truncated file is %q", i, got[i].Message)
			}
		}
		stats := src.Stats()
		t.Logf("%s: %d entries (%d from the truncated file); stats %+v", b, len(got), len(got)-100, stats)
		if stats.BadFiles != 3 || len(warned) != 3 {
			t.Fatalf("BadFiles %d, warnings %q; want the 3 bad files reported", stats.BadFiles, warned)
		}
		for _, f := range []string{cut, garbage, empty} {
			if !strings.Contains(strings.Join(warned, "\n"), f) {
				t.Errorf("no warning names %s: %q", f, warned)
			}
		}
	})
}

// TestJournalNoFollow: NoFollow reads a journal directory to its end and returns io.EOF
// there, for both backends (analyze relies on it).
func TestJournalNoFollow(t *testing.T) {
	dir := t.TempDir()
	testjournal.BuildFileFunc(t, dir, 500, journaltest.Lines(0, 500, "a.service"))
	testjournal.BuildFileFunc(t, dir, 500, journaltest.Lines(500, 500, "b.service"))
	journalBackends(t, func(t *testing.T, b Backend) {
		src := openJ(t, Options{Dir: dir, Backend: b, NoFollow: true, Units: []string{"a.service", "b.service"}, Start: Head()})
		var got []journaltest.Owned
		var e ingest.Entry
		for {
			ok, err := src.Next(&e, time.Minute) // never waits that long: the end is io.EOF
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil || !ok {
				t.Fatalf("after %d entries: ok=%v err=%v", len(got), ok, err)
			}
			got = append(got, journaltest.Own(&e))
		}
		journaltest.CheckSequence(t, got, 1000)
		if _, err := src.Next(&e, 0); !errors.Is(err, io.EOF) {
			t.Fatalf("Next after the end: %v", err)
		}
	})
}

// TestJournalEmptyDir: following a directory with no journal files yet (a journal-remote
// directory before the first upload) waits for them instead of failing.
func TestJournalEmptyDir(t *testing.T) {
	journalBackends(t, func(t *testing.T, b Backend) {
		dir := t.TempDir()
		src := openJ(t, Options{Dir: dir, Backend: b, Units: []string{"a.service"}})
		journaltest.ExpectQuiet(t, src, 300*time.Millisecond)
		testjournal.BuildFileFunc(t, dir, 50, journaltest.Lines(0, 50, "a.service"))
		journaltest.CheckSequence(t, journaltest.ReadN(t, src, 50, 20*time.Second), 50)
		if st := src.Stats(); st.Duplicates != 0 || st.CursorMissing != 0 {
			t.Fatalf("stats %+v", st)
		}
	})
}
