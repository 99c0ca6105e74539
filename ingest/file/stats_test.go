package file

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStatsCounters follows real files through a rename rotation, a truncation in place and a
// deletion with re-creation, and checks every counter an operator sees: bytes read (each
// byte written once, whatever the rotations), the lag behind the files' ends, the rotations
// by kind, the files followed and open, and failed position saves.
func TestStatsCounters(t *testing.T) {
	f := followIn(t, Options{}, "*.log")
	written := int64(0)
	write := func(name string, from, to int) {
		f.write(name, from, to)
		written += int64(to-from+1) * int64(len("line 0000\n"))
	}
	check := func(what string, ok func(Stats) bool) {
		t.Helper()
		if st := f.src.Stats(); !ok(st) {
			t.Errorf("%s: stats %+v", what, st)
		}
	}
	write("engine.log", 1, 10)
	f.read(1)
	check("one line of ten read", func(s Stats) bool { return s.Lag == 90 && s.ReadBytes == 100 && s.Files == 1 && s.Open == 1 })
	f.drain()
	check("drained", func(s Stats) bool { return s.Lag == 0 && s.ReadBytes == 100 })

	write("engine.log", 11, 15)
	f.now = f.now.Add(time.Second) // the next Next scans, and sees the new size
	f.read(1)
	check("one line of five more read", func(s Stats) bool { return s.Lag == 40 })
	f.drain()

	// Rename rotation out of the globs, and the writer's new file.
	must(t, os.Rename(f.path("engine.log"), f.path("engine.log.1")))
	write("engine.log", 16, 20)
	f.drain()
	check("renamed", func(s Stats) bool {
		return s.Renamed == 1 && s.Gone == 1 && s.Found == 2 && s.Recreated == 0 && s.Truncated == 0
	})

	// Truncation in place, twice: each is counted.
	for i, from := range []int{21, 31} {
		must(t, os.Truncate(f.path("engine.log"), 0))
		write("engine.log", from, from+4)
		f.drain()
		check("truncated", func(s Stats) bool { return s.Truncated == int64(i+1) && s.Renamed == 1 })
	}

	// Deleted and re-created under the same name.
	must(t, os.Remove(f.path("engine.log")))
	write("engine.log", 41, 45)
	f.drain()
	check("recreated", func(s Stats) bool {
		return s.Recreated == 1 && s.Renamed == 1 && s.Truncated == 2 && s.Gone == 2 && s.Found == 3
	})
	// Deleted for good: not a rotation.
	must(t, os.Remove(f.path("engine.log")))
	f.drain()
	f.now = f.now.Add(time.Minute)
	write("other.log", 1, 3)
	f.drain()
	check("deleted for good", func(s Stats) bool { return s.Recreated == 1 && s.Gone == 3 && s.Files == 1 && s.Open == 1 })

	if got := len(f.lines); got != 10+5+5+5+5+5+3 {
		t.Errorf("%d lines read", got)
	}
	check("every byte read once", func(s Stats) bool { return s.ReadBytes == written && s.Lag == 0 })

	// A save that fails (the state directory is gone) is counted; the next one succeeds.
	state := filepath.Dir(f.store.Path())
	must(t, os.RemoveAll(state))
	write("other.log", 4, 4)
	f.drain()
	if err := f.store.Flush(); err == nil {
		t.Fatal("Flush into a removed directory succeeded")
	}
	check("a failed save", func(s Stats) bool { return s.SaveFailures == 1 })
	must(t, os.MkdirAll(state, 0o700))
	must(t, f.store.Flush())
	check("saved again", func(s Stats) bool { return s.SaveFailures == 1 })
}

// TestStatsRenameInsideGlobs: a file renamed to another name the globs match (engine.log to
// engine.log.1 under engine.log*) is one rotation, and its later moves are none.
func TestStatsRenameInsideGlobs(t *testing.T) {
	f := followIn(t, Options{}, "engine.log*")
	f.write("engine.log", 1, 3)
	f.drain()
	for range 3 {
		for i := 3; i >= 1; i-- {
			os.Rename(f.path("engine.log."+string(rune('0'+i))), f.path("engine.log."+string(rune('1'+i))))
		}
		must(t, os.Rename(f.path("engine.log"), f.path("engine.log.1")))
		f.write("engine.log", 1, 3)
		f.drain()
	}
	if st := f.src.Stats(); st.Renamed != 3 || st.Gone != 0 || st.Found != 4 {
		t.Errorf("stats %+v, want 3 rename rotations of 4 files, none gone", st)
	}
}

// TestStatsLineOverBound: a line longer than MaxLineBytes is dropped and counted even when it
// arrives whole in the first read (the read buffer starts at 64 KiB, above a small bound).
func TestStatsLineOverBound(t *testing.T) {
	f := followIn(t, Options{MaxLineBytes: 32}, "*.log")
	f.write("engine.log", 1, 1)
	w, err := os.OpenFile(f.path("engine.log"), os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	w.WriteString("line " + strings.Repeat("x", 40) + "\n")
	w.Close()
	f.write("engine.log", 2, 2)
	f.drain()
	if st := f.src.Stats(); len(f.lines) != 2 || st.Cut != 1 || st.ReadBytes != 20+46 {
		t.Errorf("lines %q, stats %+v: want the long line dropped and counted", f.lines, st)
	}
}

// TestStatsDroppedSurviveTruncation: the dropped-line counts of a file truncated in place stay
// counted (issue 27, item 14: specwatch_file_dropped_lines_total went 10 → 0 at a truncation,
// and counters never go down).
func TestStatsDroppedSurviveTruncation(t *testing.T) {
	f := followIn(t, Options{}, "*.log")
	w, err := os.OpenFile(f.path("engine.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	must(t, err)
	// A Docker json-file: records that are not JSON are dropped as "format".
	w.WriteString(`{"log":"line 1\n","stream":"stderr","time":"2026-11-20T09:00:00.000000000Z"}` + "\n")
	for range 10 {
		w.WriteString("not a json-file record\n")
	}
	w.Close()
	f.drain()
	before := f.src.Stats()
	if before.Bad == 0 {
		t.Fatalf("stats %+v: want the bad records counted", before)
	}
	must(t, os.Truncate(f.path("engine.log"), 0))
	f.now = f.now.Add(time.Second)
	f.drain()
	if st := f.src.Stats(); st.Truncated != 1 || st.Bad < before.Bad || st.Cut < before.Cut {
		t.Errorf("after a truncation: stats %+v, before %+v: a counter went down", st, before)
	}
}

// TestReadBuffersReleased: a file read to its end holds no read buffer, even one that grew for
// a 1 MB line, so that many followed files cost no memory while quiet (issue 27, item 10: 300
// files that once had a 1 MB line kept 377 MB resident after everything was read).
func TestReadBuffersReleased(t *testing.T) {
	f := followIn(t, Options{}, "*.log")
	w, err := os.OpenFile(f.path("engine.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	must(t, err)
	w.WriteString(strings.Repeat("x", 1<<20) + "\n")
	w.Close()
	f.write("engine.log", 1, 3)
	f.drain()
	if len(f.lines) != 4 || len(f.lines[0]) != 1<<20 || f.lines[3] != "line 0003" {
		t.Fatalf("%d lines read", len(f.lines))
	}
	for _, tl := range f.src.files {
		if tl.buf != nil {
			t.Errorf("%s: a %d-byte buffer held after reading to the end", tl.path, len(tl.buf))
		}
	}
	f.write("engine.log", 4, 5) // and it reads on when the file grows
	f.now = f.now.Add(time.Second)
	f.drain()
	if len(f.lines) != 6 || f.lines[5] != "line 0005" {
		t.Errorf("after growing: %d lines, last %q", len(f.lines), f.lines[len(f.lines)-1])
	}
}
