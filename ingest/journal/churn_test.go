package journal

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
)

// TestJournalRotateVacuum: rotation every second during a stream, and vacuuming of the
// archived files the reader has finished (as a retention policy that keeps up would):
// nothing lost, nothing duplicated.
func TestJournalRotateVacuum(t *testing.T) {
	n, pace := journalTestSize(20_000, 30_000, 60_000), 10*time.Millisecond // 100 lines per 10 ms
	journalBackends(t, func(t *testing.T, b Backend) {
		j := journaltest.StartJournald(t)
		src := openJ(t, Options{Dir: j.Dir(), Backend: b, Units: []string{"sglang.service"}})
		errc := journaltest.StreamLines(j, n, pace, false)
		// Churn from the reading goroutine itself, between two Next calls, so that it knows
		// exactly which lines have been read: rotate every second, then vacuum the archived
		// files whose lines have all been read.
		rotations, vacuumed := 0, 0
		lastRead := -1
		churn := func() {
			j.Rotate()
			rotations++
			files := j.Files()
			keep := len(files)
			for _, f := range files[:len(files)-1] { // archived, oldest first
				if last := journaltest.LastLineIn(t, f); last < 0 || last > lastRead {
					break
				}
				keep--
			}
			if keep < len(files) {
				j.Vacuum(keep)
				vacuumed += len(files) - keep
			}
		}
		var got []journaltest.Owned
		deadline := time.Now().Add(2 * time.Minute)
		nextChurn := time.Now().Add(time.Second)
		var e ingest.Entry
		for len(got) < n && time.Now().Before(deadline) {
			ok, err := src.Next(&e, 200*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				got = append(got, journaltest.Own(&e))
				lastRead = journaltest.SeqOf(t, got[len(got)-1].Message)
			}
			if time.Now().After(nextChurn) {
				churn()
				nextChurn = time.Now().Add(time.Second)
			}
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		journaltest.CheckSequence(t, got, n)
		journaltest.ExpectQuiet(t, src, 300*time.Millisecond)
		st := src.Stats()
		t.Logf("%s: %d lines over %d rotations, %d files vacuumed; stats %+v", b, n, rotations, vacuumed, st)
		if rotations < 2 || vacuumed < 1 || (b == SDJournal && st.Invalidations == 0) {
			t.Fatalf("rotations %d, vacuumed %d, invalidations %d: the churn did not happen", rotations, vacuumed, st.Invalidations)
		}
	})
}

// TestJournalJournaldRestart: journald is killed (SIGKILL) and restarted twice mid-stream.
// The reader keeps going, and what it returns is exactly what the journal holds (checked
// against journalctl): in order, no duplicates. Lines still queued in journald's socket
// when it died are lost by journald, not by the reader; the oracle accounts for that.
func TestJournalJournaldRestart(t *testing.T) {
	n := journalTestSize(10_000, 15_000, 30_000)
	journalBackends(t, func(t *testing.T, b Backend) {
		j := journaltest.StartJournald(t)
		src := openJ(t, Options{Dir: j.Dir(), Backend: b, Units: []string{"sglang.service"}})
		errc := journaltest.StreamLines(j, n, 5*time.Millisecond, true)
		var got []journaltest.Owned
		kills := 0
		var e ingest.Entry
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) {
			ok, err := src.Next(&e, 500*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				got = append(got, journaltest.Own(&e))
				if kills < 2 && len(got) == (kills+1)*n/3 {
					j.Kill()
					j.Restart()
					kills++
				}
				if journaltest.SeqOf(t, got[len(got)-1].Message) == n-1 {
					break
				}
			}
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		journaltest.ExpectQuiet(t, src, 300*time.Millisecond)
		out, err := exec.Command("journalctl", "-D", j.Dir(), "-o", "export", "--no-pager", "_SYSTEMD_UNIT=sglang.service").Output()
		if err != nil {
			t.Fatal(err)
		}
		want := journaltest.ReadAll(t, out)
		if len(got) != len(want) {
			t.Fatalf("reader returned %d entries, the journal holds %d", len(got), len(want))
		}
		prev := -1
		for i := range want {
			if got[i].Cursor != want[i].Cursor || got[i].Message != want[i].Message {
				t.Fatalf("entry %d: reader %v, journal %v", i, got[i], want[i])
			}
			if s := journaltest.SeqOf(t, got[i].Message); s <= prev {
				t.Fatalf("entry %d: line %d after line %d", i, s, prev)
			} else {
				prev = s
			}
		}
		dirty := 0
		for _, f := range j.Files() {
			if strings.HasSuffix(filepath.Base(f), ".journal~") {
				dirty++
			}
		}
		st := src.Stats()
		t.Logf("%s: %d of %d lines survived 2 journald kills (%d dirty files); stats %+v", b, len(got), n, dirty, st)
		if st.Duplicates != 0 || st.CursorMissing != 0 {
			t.Fatalf("stats %+v", st)
		}
	})
}
