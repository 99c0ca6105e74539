package native

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/ingest/journal/sdjournal"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// TestNativeRotateWithNoise: other units write between the followed unit's lines while the
// journal rotates several times a second, so new files often start without the unit (its
// data object, and so its entry list, appears later): nothing lost, nothing duplicated.
func TestNativeRotateWithNoise(t *testing.T) {
	const n = 6000
	j := journaltest.StartJournald(t)
	src := openJ(t, Name, backend.Options{Dir: j.Dir(), Units: []string{"sglang.service"}})
	stop := make(chan struct{})
	noise := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				noise <- nil
				return
			default:
			}
			if err := j.Send("noise.service", "noise", journaltest.Numbered("noise", i)); err != nil {
				noise <- err
				return
			}
		}
	}()
	errc := journaltest.StreamLines(j, n, 20*time.Millisecond, false)
	var got []journaltest.Owned
	var e ingest.Entry
	rotations := 0
	next := time.Now()
	for deadline := time.Now().Add(time.Minute); len(got) < n && time.Now().Before(deadline); {
		ok, err := src.Next(&e, 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			got = append(got, journaltest.Own(&e))
		}
		if time.Now().After(next) {
			j.Rotate()
			rotations++
			next = time.Now().Add(200 * time.Millisecond)
		}
	}
	close(stop)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if err := <-noise; err != nil {
		t.Fatal(err)
	}
	journaltest.CheckSequence(t, got, n)
	journaltest.ExpectQuiet(t, src, 300*time.Millisecond)
	t.Logf("%d lines over %d rotations; stats %+v", n, rotations, src.Stats())
}

// TestNativeFileBeingCreated: journald creates a file, then writes its header, then its hash
// tables; a follower told by inotify reads it at once. A file that is no journal file yet is
// looked at again, not skipped for good (the soak lost the first lines after a rotation so).
func TestNativeFileBeingCreated(t *testing.T) {
	src := t.TempDir()
	built := testjournal.BuildFileFunc(t, src, 50, journaltest.Lines(0, 50, "a.service"))
	content, err := os.ReadFile(built)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		stage []byte // what the file holds when the follower first sees it
	}{{"empty", nil}, {"header only", headerOnly(content)}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			r := openJ(t, Name, backend.Options{Dir: dir, Units: []string{"a.service"}, Head: true})
			path := filepath.Join(dir, "system.journal")
			if err := os.WriteFile(path, c.stage, 0o644); err != nil {
				t.Fatal(err)
			}
			journaltest.ExpectQuiet(t, r, 200*time.Millisecond) // the follower has seen the file
			journaltest.Patch(t, path, 0, content)
			journaltest.CheckSequence(t, journaltest.ReadN(t, r, 50, 5*time.Second), 50)
		})
	}
}

// headerOnly is a journal file as journald has it between writing the header and creating the
// hash tables: the header without them, and nothing after it.
func headerOnly(file []byte) []byte {
	h := append([]byte{}, file[:binary.LittleEndian.Uint64(file[88:])]...)
	for _, at := range []int{104, 112, 120, 128, 136, 144, 152, 176} { // hash tables, tail, counts
		binary.LittleEndian.PutUint64(h[at:], 0)
	}
	return h
}

// TestNativeTwoFilesWritten: one unit's entries go to two files written at once (the system
// journal, and a user's, as journald splits by uid), merged in the writer's sequence: every
// line once, in sequence-number order, the same as libsystemd returns.
func TestNativeTwoFilesWritten(t *testing.T) {
	const n = 4000
	j := journaltest.StartJournald(t)
	src := openJ(t, Name, backend.Options{Dir: j.Dir(), Units: []string{"sglang.service"}, Head: true})
	errc := make(chan error, 1)
	go func() {
		for i := range n {
			var err error
			if i%3 == 0 {
				err = j.SendAsUser(1000, "sglang.service", "python3", journaltest.Numbered("line", i))
			} else {
				err = j.Send("sglang.service", "python3", journaltest.Numbered("line", i))
			}
			if err != nil {
				errc <- err
				return
			}
			if i%200 == 199 {
				time.Sleep(10 * time.Millisecond) // spread over many polls
			}
		}
		errc <- nil
	}()
	got := journaltest.ReadN(t, src, n, time.Minute)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	journaltest.ExpectQuiet(t, src, 300*time.Millisecond)
	files := j.Files()
	if len(files) < 2 {
		t.Fatalf("journald wrote %v: no user journal, nothing to merge", files)
	}
	journaltest.CheckSequence(t, got, n)
	var last uint64
	for i, o := range got {
		p, ok := backend.ParseCursor([]byte(o.Cursor))
		if !ok || p.Seqnum <= last {
			t.Fatalf("entry %d: cursor %q not after sequence number %d", i, o.Cursor, last)
		}
		last = p.Seqnum
	}
	if sdjournal.Available() == nil {
		sd := journaltest.Drain(t, openJ(t, sdjournal.Name, backend.Options{Dir: j.Dir(), Units: []string{"sglang.service"}, Head: true}), 300*time.Millisecond)
		journaltest.SameEntries(t, got, sd)
	}
}

// TestNativeSnapshotRace: while a poll reads the headers of two files one after the other,
// journald links an entry into the first file (its header already read) and then one into the
// second. In either round of the poll, the second's newer entry must not be returned before the
// first's older one, or a cursor saved between them would skip the older one on restart. The
// poll's bound defers it; without the bound, or with one per sequence number id (the user
// journal has its own), this test fails.
func TestNativeSnapshotRace(t *testing.T) {
	for _, round := range []int{1, 2} {
		t.Run(fmt.Sprintf("round %d", round), func(t *testing.T) {
			j := journaltest.StartJournald(t)
			r := openJ(t, Name, backend.Options{Dir: j.Dir(), Units: []string{"sglang.service"}, Head: true})
			send := func(user bool, i int) {
				var err error
				if user {
					err = j.SendAsUser(1000, "sglang.service", "python3", journaltest.Numbered("line", i))
				} else {
					err = j.Send("sglang.service", "python3", journaltest.Numbered("line", i))
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			send(false, 0)
			send(true, 1)
			j.Sync()
			got := journaltest.ReadN(t, r, 2, 10*time.Second)
			ns := r.(*Source)
			if len(ns.files) < 2 {
				t.Fatalf("%d files: no user journal, nothing to race", len(ns.files))
			}
			raced := false
			ns.onRefresh = func(f *jfile, in int) {
				if raced || in != round || filepath.Base(f.path) != "system.journal" {
					return
				}
				raced = true
				send(false, 2) // into system.journal, whose header this round has read
				send(true, 3)  // into the user's, whose header it reads next
				j.Sync()
			}
			got = append(got, journaltest.ReadN(t, r, 2, 10*time.Second)...)
			if !raced {
				t.Fatal("no poll read system.journal's header before the user's")
			}
			journaltest.CheckSequence(t, got, 4)
		})
	}
}
