package file

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
)

func TestFollowAppendAndPartialLine(t *testing.T) {
	f := followIn(t, Options{}, "*.log")
	f.write("engine.log", 1, 3)
	w, err := os.OpenFile(f.path("engine.log"), os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	defer w.Close()
	w.WriteString("line 00")
	f.drain()
	if len(f.lines) != 3 {
		t.Fatalf("lines %q: a line without its newline must wait", f.lines)
	}
	w.WriteString("04\n")
	f.drain()
	f.exactlyOnce(4)
	if f.units[0] != f.path("engine.log") {
		t.Errorf("unit %q, want the path", f.units[0])
	}
}

func TestFollowRenameRotation(t *testing.T) {
	for _, glob := range []string{"engine.log", "engine.log*"} {
		t.Run(glob, func(t *testing.T) {
			f := followIn(t, Options{}, glob)
			f.write("engine.log", 1, 10)
			f.read(4)
			// Rotated while behind: the rest of the old file is still read, then the new one.
			must(t, os.Rename(f.path("engine.log"), f.path("engine.log.1")))
			f.write("engine.log.1", 11, 12) // the writer still had the old file open
			f.write("engine.log", 13, 20)
			f.drain()
			must(t, os.Rename(f.path("engine.log.1"), f.path("engine.log.2")))
			must(t, os.Rename(f.path("engine.log"), f.path("engine.log.1")))
			f.write("engine.log", 21, 25)
			f.drain()
			f.exactlyOnce(25)
			// Two rotations whether the old file leaves the globs or not: engine.log.1 moving
			// on to engine.log.2 is not a rotation of its own.
			if st := f.src.Stats(); st.Renamed != 2 || st.Recreated != 0 || st.Truncated != 0 {
				t.Errorf("stats %+v, want 2 rename rotations", st)
			}
		})
	}
}

func TestFollowDeleteAndRecreate(t *testing.T) {
	f := followIn(t, Options{}, "*.log")
	f.write("engine.log", 1, 5)
	f.drain()
	must(t, os.Remove(f.path("engine.log")))
	f.drain()
	f.write("engine.log", 6, 9)
	f.drain()
	f.exactlyOnce(9)
	if st := f.src.Stats(); st.Files != 1 || st.Open != 1 {
		t.Errorf("stats %+v: the deleted file should be closed", st)
	}
}

// copytruncate with the copy under the globs loses nothing even when specwatch is behind: the
// copy is read from where the original was truncated. Either order of discovery: the copy
// seen before the truncation (parked), or after it.
func TestFollowCopyTruncate(t *testing.T) {
	for _, copyFirst := range []bool{true, false} {
		name := "truncation first"
		if copyFirst {
			name = "copy first"
		}
		t.Run(name, func(t *testing.T) {
			f := followIn(t, Options{}, "engine.log*")
			f.write("engine.log", 1, 10)
			f.drain()
			f.write("engine.log", 11, 20) // not read yet
			b, err := os.ReadFile(f.path("engine.log"))
			must(t, err)
			must(t, os.WriteFile(f.path("engine.log.1"), b, 0o644))
			if copyFirst {
				f.read(0)
				f.src.scan(f.now) // the copy is found while the original is intact
			}
			must(t, os.Truncate(f.path("engine.log"), 0))
			f.write("engine.log", 21, 30)
			f.drain()
			f.exactlyOnce(30)
			if st := f.src.Stats(); st.Truncated != 1 || st.CopiesRead != 1 {
				t.Errorf("stats %+v, want one truncation and one copy read", st)
			}
		})
	}
}

// copytruncate creates the copy, then fills it, then truncates the original: a scan that finds
// the copy empty must not take it for a new file (it would read every line of the copy a
// second time), and one that finds it half written (fewer bytes than a fingerprint, all the
// original's) parks it behind the original like a whole one, read from the truncation point.
func TestFollowCopyTruncateCopySeenUnfinished(t *testing.T) {
	for _, c := range []struct {
		name   string
		unread int // lines written after the last read, before the copy
		copied int // bytes of the copy when the scan sees it
	}{{"empty", 0, 0}, {"half written", 5, 25}} {
		t.Run(c.name, func(t *testing.T) {
			f := followIn(t, Options{}, "engine.log*")
			f.write("engine.log", 1, 10)
			f.drain()
			f.write("engine.log", 11, 10+c.unread)
			b, err := os.ReadFile(f.path("engine.log"))
			must(t, err)
			must(t, os.WriteFile(f.path("engine.log.1"), b[:c.copied], 0o644))
			f.src.scan(f.now)
			must(t, os.WriteFile(f.path("engine.log.1"), b, 0o644))
			must(t, os.Truncate(f.path("engine.log"), 0))
			f.write("engine.log", 11+c.unread, 20)
			f.drain()
			f.exactlyOnce(20)
			if st := f.src.Stats(); st.CopiesRead != 1 {
				t.Errorf("stats %+v, want the copy read once", st)
			}
		})
	}
}

// A file that appears under a truncated original's name while the original is still empty is
// not a copy of it (an empty file has no start to copy): its lines are read.
func TestFollowNewFileBesideEmptyOriginal(t *testing.T) {
	f := followIn(t, Options{}, "engine.log*")
	f.write("engine.log", 1, 10)
	f.drain()
	must(t, os.Truncate(f.path("engine.log"), 0)) // truncated in place, no copy
	f.drain()                                     // longer than RotateWait: no copy is awaited
	f.write("engine.log.old", 11, 20)
	f.drain()
	f.exactlyOnce(20)
}

// A plain copy (cp without truncation) is the same lines: never read.
func TestFollowCopyNotRead(t *testing.T) {
	f := followIn(t, Options{}, "engine.log*")
	f.write("engine.log", 1, 10)
	f.drain()
	b, _ := os.ReadFile(f.path("engine.log"))
	must(t, os.WriteFile(f.path("engine.log.bak"), b, 0o644))
	f.write("engine.log", 11, 12)
	f.drain()
	f.exactlyOnce(12)
}

func TestStartAtEnd(t *testing.T) {
	f := newFollower(t, t.TempDir(), Options{})
	f.write("old.log", 1, 5)
	w, _ := os.OpenFile(f.path("old.log"), os.O_WRONLY|os.O_APPEND, 0)
	w.WriteString("line 00") // being written when specwatch starts: read whole
	f = newFollower(t, f.dir, Options{Globs: []string{f.path("*.log")}, StartAtEnd: true})
	f.drain()
	w.WriteString("06\n")
	w.Close()
	f.write("new.log", 7, 8) // found later: from its start
	f.drain()
	if len(f.lines) != 3 || f.lines[0] != "line 0006" || f.lines[2] != "line 0008" {
		t.Fatalf("lines %q, want 6, 7, 8", f.lines)
	}
}

// Over MaxOpen files, the least recently read are closed and reopened when they grow.
func TestBoundedOpenFiles(t *testing.T) {
	f := followIn(t, Options{MaxOpen: 3}, "*.log")
	names := []string{"a.log", "b.log", "c.log", "d.log", "e.log", "f.log", "g.log", "h.log"}
	n := 0
	for round := 0; round < 4; round++ {
		for _, name := range names {
			f.write(name, n+1, n+3)
			n += 3
		}
		f.drain()
		if st := f.src.Stats(); st.Open > 3 {
			t.Fatalf("%d files open, bound 3", st.Open)
		}
	}
	f.exactlyOnce(n)
	if st := f.src.Stats(); st.Reopened == 0 {
		t.Errorf("stats %+v: files should have been closed and reopened", st)
	}
}

// A copy of a file closed under the open-files bound is still recognised as a copy.
func TestCopyOfClosedFile(t *testing.T) {
	f := followIn(t, Options{MaxOpen: 1}, "*.log*")
	f.write("a.log", 1, 5)
	f.drain()
	f.write("b.log", 6, 10) // b is read last: a is closed
	f.drain()
	if st := f.src.Stats(); st.Open != 1 {
		t.Fatalf("stats %+v, want one open file", st)
	}
	b, _ := os.ReadFile(f.path("a.log"))
	must(t, os.WriteFile(f.path("a.log.1"), b, 0o644))
	f.drain()
	f.exactlyOnce(10)
}

// A deleted file whose last line never got its newline is still closed after the rotation
// wait, the unfinished line counted.
func TestDeletedWithUnfinishedLine(t *testing.T) {
	f := followIn(t, Options{}, "*.log")
	f.write("a.log", 1, 2)
	w, _ := os.OpenFile(f.path("a.log"), os.O_WRONLY|os.O_APPEND, 0)
	w.WriteString("line 00")
	w.Close()
	f.drain()
	must(t, os.Remove(f.path("a.log")))
	f.drain()
	f.exactlyOnce(2)
	if st := f.src.Stats(); st.Files != 0 || st.Open != 0 || st.Cut != 1 {
		t.Fatalf("stats %+v, want the file closed and its unfinished line counted", st)
	}
}

// A rotation seen before the writer created its new file: the new file is found within
// checkEvery of its creation, not at the next full scan.
func TestRotationFollowedQuickly(t *testing.T) {
	f := followIn(t, Options{Rescan: 10 * time.Second}, "engine.log")
	f.write("engine.log", 1, 3)
	f.read(3)
	must(t, os.Rename(f.path("engine.log"), f.path("engine.log.1")))
	start := f.now
	var e ingest.Entry
	f.src.Next(&e, 20*time.Millisecond) // sees the rotation: engine.log does not exist yet
	f.src.Next(&e, 200*time.Millisecond)
	f.write("engine.log", 4, 4)
	for i := 0; i < 20 && len(f.lines) < 4; i++ {
		if ok, _ := f.src.Next(&e, 20*time.Millisecond); ok {
			f.lines = append(f.lines, string(e.Message))
		}
	}
	if len(f.lines) != 4 || f.now.Sub(start) > time.Second {
		t.Fatalf("after %v: lines %q, want line 4 within a second (the full scan is 10 s apart)", f.now.Sub(start), f.lines)
	}
}

// TestFollowDockerJSONLongFirstRecord: a json-file whose first record is over the 64 KiB the
// format is sniffed from (dockerd's \u003c for '<') is still decoded as json-file, its lines
// read as the engine wrote them (issue 27, item 12: decoded as plain text, every line malformed).
func TestFollowDockerJSONLongFirstRecord(t *testing.T) {
	f := followIn(t, Options{}, "*.log")
	w, err := os.OpenFile(f.path("c-json.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	must(t, err)
	w.WriteString(`{"log":"` + strings.Repeat(`\u003c`, 12000) + `\n","stream":"stdout","time":"2026-11-20T09:00:00.000000000Z"}` + "\n")
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(w, `{"log":"line %04d\n","stream":"stderr","time":"2026-11-20T09:00:01.000000000Z"}`+"\n", i)
	}
	w.Close()
	f.drain()
	if len(f.lines) != 6 || f.lines[0] != strings.Repeat("<", 12000) || f.lines[5] != "line 0005" {
		t.Errorf("%d lines, last %q: want the long record and 5 lines decoded", len(f.lines), f.lines[len(f.lines)-1])
	}
}
