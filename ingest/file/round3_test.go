package file

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
)

// The named tests of issue 27's items 1-5 and 15, each the scenario at a small scale;
// TestExactlyOnceEveryInterleaving drives the same mechanisms through every kill point.

// worldFollower is a follower of glob and writers of names, in its directory.
func worldFollower(t *testing.T, o Options, glob string, names []string, appendMode bool) (*follower, *world) {
	f := followIn(t, o, glob)
	return f, newWorld(t, f.dir, names, appendMode)
}

func onceEach(t *testing.T, f *follower, w *world) {
	t.Helper()
	count := map[int]int{}
	for _, l := range f.lines {
		if strings.ContainsRune(l, 0) {
			t.Errorf("a line with NUL bytes: %.40q", l)
		}
		count[lineNumber(t, l)]++
	}
	for n := 1; n <= w.seq; n++ {
		if count[n] != 1 {
			t.Errorf("line %d applied %d times", n, count[n])
		}
	}
	for _, u := range f.units {
		if strings.HasSuffix(u, ".1") {
			t.Errorf("a line in series %s: a copy's lines belong to its original's", u)
			break
		}
	}
}

// Item 1: logrotate copies, syncs the copy while the engine appends (lines read from the
// original, not in the copy), then truncates. The copy resumed past its end was taken for
// truncated and read again whole, in a second series.
func TestCopyTruncateSyncWindow(t *testing.T) {
	f, w := worldFollower(t, Options{}, "app.log*", []string{"app.log"}, true)
	for _, st := range []step{writeStep(0, 20), copyStep(0, "app.log.1", 1), writeStep(0, 6), truncateStep(0, 0), writeStep(0, 10)} {
		st.do(w, nil)
		f.drain()
	}
	onceEach(t, f, w)
	if st := f.src.Stats(); st.Truncated != 1 {
		t.Errorf("%d truncations counted, want 1", st.Truncated)
	}
}

// Item 2: an engine started as `engine > server.log` goes on at its old offset after the
// truncation: the log starts with NULs. No line twice, none glued to the NULs.
func TestCopyTruncateNonAppendWriter(t *testing.T) {
	f, w := worldFollower(t, Options{}, "server.log*", []string{"server.log"}, false)
	for _, st := range []step{writeStep(0, 20), copyStep(0, "server.log.1", 1), writeStep(0, 3), truncateStep(0, 0), writeStep(0, 10)} {
		st.do(w, nil)
		f.drain()
	}
	onceEach(t, f, w)
	if st := f.src.Stats(); st.NULBytes != 23*int64(len(lineText(0))) {
		t.Errorf("%d NUL bytes skipped, want the hole's %d", st.NULBytes, 23*len(lineText(0)))
	}
}

// Item 3: truncated and refilled past its old size before the next scan. The new content was
// read at the stale offset, then again from 0.
func TestTruncatedRefilledBeforeScan(t *testing.T) {
	f, w := worldFollower(t, Options{}, "app.log*", []string{"app.log"}, true)
	for _, st := range []step{writeStep(0, 20), copyStep(0, "app.log.1", 1), truncateStep(0, 30), writeStep(0, 5)} {
		st.do(w, nil)
		f.drain()
	}
	onceEach(t, f, w)
}

// Item 4: more active files than max_open, renamed out of the globs while closed (the
// kubelet's rotation), and many new files at once.
func TestMoreFilesThanMaxOpen(t *testing.T) {
	names := make([]string, 12)
	for i := range names {
		names[i] = fmt.Sprintf("%d.log", i)
	}
	f, w := worldFollower(t, Options{MaxOpen: 3}, "*.log", names, true)
	var round []step
	for i := range names {
		round = append(round, writeStep(i, 2))
	}
	multiStep(round...).do(w, nil)
	// One Next per line, no clock advance beyond the first scan: new files are read at once,
	// not three per scan.
	var e ingest.Entry
	for range len(names) * 3 {
		if ok, _ := f.src.Next(&e, 0); ok {
			f.lines = append(f.lines, string(e.Message))
			f.store.Mark(e.Cursor)
		}
	}
	if len(f.lines) != len(names)*2 {
		t.Fatalf("%d of %d lines of new files read before the next scan", len(f.lines), len(names)*2)
	}
	for r := 0; r < 3; r++ {
		multiStep(round...).do(w, nil)
		f.drain()
	}
	var rotate []step
	for i := range names {
		rotate = append(rotate, writeStep(i, 2), renameStep(i, names[i]+".20261120-093000", false))
	}
	multiStep(rotate...).do(w, nil)
	f.drain()
	onceEach(t, f, w)
	if st := f.src.Stats(); st.Open > 3+len(names) || st.Lost != 0 {
		t.Errorf("stats %+v", st)
	}
}

// Item 5: the runtime rotates while specwatch is down, the rotated name outside the globs
// (kubelet and Docker names); a file deleted while down is counted and reported.
func TestRotatedWhileDown(t *testing.T) {
	f, w := worldFollower(t, Options{}, "*.log", []string{"0.log", "c-json.log", "gone.log"}, true)
	for i := range 3 {
		w.write(i, 10) // lines 1-30
	}
	f.drain()
	must(t, f.store.Flush())
	f.src.Close() // killed
	for i := range 3 {
		w.write(i, 10) // lines 31-60, unread; 51-60 in gone.log
	}
	renameStep(0, "0.log.20261120-093000", false).do(w, nil)
	renameStep(1, "c-json.log.1", false).do(w, nil)
	must(t, os.Remove(w.path("gone.log")))
	var warned []string
	f.o.Warn = func(msg, path string, _ error) { warned = append(warned, path+": "+msg) }
	f = f.restart(false)
	for i := range 2 {
		w.write(i, 5) // lines 61-70, in the new files
	}
	f.drain()
	count := map[int]int{}
	for _, l := range f.lines {
		count[lineNumber(t, l)]++
	}
	for n := 1; n <= w.seq; n++ {
		if want := b2i(n <= 50 || n > 60); count[n] != want {
			t.Errorf("line %d applied %d times, want %d", n, count[n], want)
		}
	}
	if st := f.src.Stats(); st.Lost != 1 || st.Renamed != 2 {
		t.Errorf("stats %+v: want 1 lost (gone.log), 2 renamed", st)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "gone.log") {
		t.Errorf("warnings %q: want one, naming gone.log", warned)
	}
}

// Item 15: a file whose reads fail (EIO) is reported once, counted, and read when the disk
// recovers, not taken for idle forever.
func TestReadErrorsReported(t *testing.T) {
	var warned []string
	f, w := worldFollower(t, Options{Warn: func(msg, path string, err error) {
		warned = append(warned, fmt.Sprintf("%s: %s: %v", path, msg, err))
	}}, "*.log", []string{"a.log"}, true)
	w.write(0, 5)
	f.drain()
	failing := true
	saved := readAt
	readAt = func(fl *os.File, b []byte, off int64) (int, error) {
		if failing {
			return 0, &os.PathError{Op: "read", Path: fl.Name(), Err: syscall.EIO}
		}
		return saved(fl, b, off)
	}
	t.Cleanup(func() { readAt = saved })
	w.write(0, 5)
	f.drain()
	f.drain()
	if st := f.src.Stats(); st.ReadErrors != 1 || len(warned) != 1 || !strings.Contains(warned[0], "input/output error") {
		t.Fatalf("stats %+v, warnings %q: want one read error, reported once", st, warned)
	}
	failing = false
	f.drain()
	if len(f.lines) != 10 {
		t.Fatalf("%d lines after the disk recovered, want 10", len(f.lines))
	}
}

// Item 6, the soak's variant: a first start that found no file yet, killed before its first
// periodic save, was a first start again at the restart, and started the files created
// meanwhile at their end. The positions are written at the first scan.
func TestFirstStartSavedAtFirstScan(t *testing.T) {
	f := followIn(t, Options{StartAtEnd: true}, "*.log")
	f.read(1)
	if _, existed, err := f.store.Load(); err != nil || !existed {
		t.Fatalf("no positions file after the first scan of a first start (%v)", err)
	}
	f.write("a.log", 1, 5)
	f = f.restart(false) // killed before any periodic save
	f.drain()
	f.exactlyOnce(5)
}

// The globs' directories are listed again only when they change (10,000 idle files): a file
// created in a directory listed long ago is still found at the next scan.
func TestListingCachedUntilDirectoryChanges(t *testing.T) {
	f := followIn(t, Options{}, "*.log")
	f.write("a.log", 1, 3)
	long := time.Now().Add(-time.Hour)
	must(t, os.Chtimes(f.dir, long, long))
	f.drain()
	if l := f.src.listings[f.o.Globs[0]]; l == nil || !l.mtime.Equal(long) {
		t.Fatalf("listing %+v: want one of the directory as of an hour ago", l)
	}
	f.write("b.log", 4, 6)
	f.drain()
	f.exactlyOnce(6)
}

// Quiet files rest between stats while their directory is unchanged; a closed one that grows
// is read within restStride scans, and a rotation (which changes the directory) at once.
func TestQuietFilesRest(t *testing.T) {
	f := followIn(t, Options{MaxOpen: 1}, "*.log")
	f.write("a.log", 1, 2)
	f.write("b.log", 3, 4)
	f.drain()
	long := time.Now().Add(-time.Hour)
	must(t, os.Chtimes(f.dir, long, long))
	f.now = f.now.Add(restAfter + time.Second)
	f.read(3) // two scans: the listing is cached, the files rest
	if len(f.src.rest) == 0 {
		t.Fatal("no file rests: quiet files in an unchanged directory are stat'ed every scan")
	}
	f.write("a.log", 5, 5)
	f.write("b.log", 6, 6)
	must(t, os.Chtimes(f.dir, long, long))
	f.read(restStride + 2)
	if len(f.lines) != 6 {
		t.Fatalf("%d lines within %d scans, want 6", len(f.lines), restStride+2)
	}
	must(t, os.Rename(f.path("a.log"), f.path("a.log.1"))) // the directory changes
	f.write("a.log", 7, 7)
	f.read(2)
	f.exactlyOnce(7)
}

// copytruncate between the scan's stat of the original and its stat of the new copy: the
// copy was taken for a new file and applied a second time (the files soak, seed 729220085).
func TestCopyTruncateBetweenStats(t *testing.T) {
	f, w := worldFollower(t, Options{}, "app.log*", []string{"app.log"}, true)
	writeStep(0, 20).do(w, nil)
	f.drain()
	writeStep(0, 10).do(w, nil) // not read yet when the rotation comes
	copyStep(0, "app.log.1", 1).do(w, nil)
	saved := statPath
	t.Cleanup(func() { statPath = saved })
	statPath = func(path string) (os.FileInfo, error) {
		if strings.HasSuffix(path, "app.log.1") {
			statPath = saved
			truncateStep(0, 3).do(w, nil) // after the scan looked at app.log
		}
		return saved(path)
	}
	f.drain()
	writeStep(0, 5).do(w, nil)
	f.drain()
	onceEach(t, f, w)
}
