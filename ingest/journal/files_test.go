package journal_test

import (
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testjournal"
)

func lines(from, to int, unit string) func(i int, e *testjournal.Entry) {
	return func(i int, e *testjournal.Entry) {
		*e = testjournal.Entry{Host: "gpu07", Unit: unit, Identifier: "python3", Message: numbered("line", from+i),
			Time: testjournal.FixtureEpoch.Add(time.Duration(from+i) * time.Millisecond)}
	}
}

// aged sets a file's times an hour back: the checker leaves files younger than a few
// seconds for later, as they may be in the middle of being created.
func aged(t *testing.T, path string) {
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

// TestJournalDamagedFiles: a directory with a good journal file, a truncated one, one that
// is not a journal file and an empty one. Every entry of the good file is read, in order;
// the bad files are reported (once each) and counted; no error stops the reader.
func TestJournalDamagedFiles(t *testing.T) {
	dir := t.TempDir()
	good := testjournal.BuildFileFunc(t, dir, 100, lines(0, 100, "a.service"))
	cut := testjournal.BuildFileFunc(t, dir, 2000, lines(100, 2000, "a.service"))
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
		aged(t, f)
	}
	journalBackends(t, func(t *testing.T, b Backend) {
		var warned []string
		src := openJ(t, JournalOptions{Dir: dir, Backend: b, Units: []string{"a.service"}, Since: time.Unix(1, 0),
			Warn: func(m string) { warned = append(warned, m) }})
		var got []owned
		var e Entry
		for {
			ok, err := src.Next(&e, 500*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			got = append(got, own(&e))
		}
		if len(got) < 100 {
			t.Fatalf("read %d entries, want at least the good file's 100", len(got))
		}
		checkSequence(t, got[:100], 100)
		for i := 100; i < len(got); i++ { // whatever libsystemd salvages of the cut file
			if seqOf(t, got[i].Message) != i {
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

func TestCheckJournalFile(t *testing.T) {
	dir := t.TempDir()
	good := testjournal.BuildFileFunc(t, dir, 10, lines(0, 10, "a.service"))
	st, _ := os.Stat(good)
	if err := checkJournalFile(good, st.Size()); err != nil {
		t.Fatalf("good file: %v", err)
	}
	if err := checkJournalFile(good, st.Size()-1); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("one byte short: %v", err)
	}
	if err := checkJournalFile(filepath.Join(dir, "missing.journal"), 0); err == nil {
		t.Fatal("missing file: no error")
	}
	c := newFileChecker(dir)
	if bad := c.scan(time.Now()); len(bad) != 0 {
		t.Fatalf("scan of a good directory: %q", bad)
	}
	sub := filepath.Join(dir, "3d1219c7c4c5404aaa1f6d2a48adfda4.ns1")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "system.journal"), []byte("not a journal"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ignored"), 0o644)
	if bad := c.scan(time.Now()); len(bad) != 0 {
		t.Fatalf("a file written just now is judged later, got %q", bad)
	}
	if bad := c.scan(time.Now().Add(time.Minute)); len(bad) != 1 || !strings.Contains(bad[0], sub) {
		t.Fatalf("bad file in a machine-id subdirectory: %q", bad)
	}
	if bad := c.scan(time.Now().Add(2 * time.Minute)); len(bad) != 0 {
		t.Fatalf("reported twice: %q", bad)
	}
}

// TestJournalNoFollow: NoFollow reads a journal directory to its end and returns io.EOF
// there, for both backends (analyze relies on it).
func TestJournalNoFollow(t *testing.T) {
	dir := t.TempDir()
	testjournal.BuildFileFunc(t, dir, 500, lines(0, 500, "a.service"))
	testjournal.BuildFileFunc(t, dir, 500, lines(500, 500, "b.service"))
	journalBackends(t, func(t *testing.T, b Backend) {
		src := openJ(t, JournalOptions{Dir: dir, Backend: b, Since: time.Unix(1, 0), NoFollow: true, Units: []string{"a.service", "b.service"}})
		var got []owned
		var e Entry
		for {
			ok, err := src.Next(&e, time.Minute) // never waits that long: the end is io.EOF
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil || !ok {
				t.Fatalf("after %d entries: ok=%v err=%v", len(got), ok, err)
			}
			got = append(got, own(&e))
		}
		checkSequence(t, got, 1000)
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
		src := openJ(t, JournalOptions{Dir: dir, Backend: b, Units: []string{"a.service"}})
		expectQuiet(t, src, 300*time.Millisecond)
		testjournal.BuildFileFunc(t, dir, 50, lines(0, 50, "a.service"))
		checkSequence(t, readN(t, src, 50, 20*time.Second), 50)
		if st := src.Stats(); st.Duplicates != 0 || st.CursorMissing != 0 {
			t.Fatalf("stats %+v", st)
		}
	})
}
