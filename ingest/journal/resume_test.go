package journal

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
)

// journalTestSize picks a stream length: short with -short, long with
// SPECWATCH_LONG_TESTS=1 (the 200k-line runs take over a minute with -race on a busy
// 2-core machine), normal otherwise — what CI runs.
func journalTestSize(short, normal, long int) int {
	switch {
	case os.Getenv("SPECWATCH_LONG_TESTS") != "":
		return long
	case testing.Short():
		return short
	}
	return normal
}

// TestJournalCrashResume streams lines through a real journald while the reader "crashes"
// at random points (closed without a final flush) and restarts from the cursor file.
//
// The consumer follows the pipeline's protocol: apply the entry, then Mark its cursor; flush
// now and then. Its durable state — how many lines it has applied — is recorded in the same
// step as a successful flush, so a crash rolls both back together: entries applied after the
// last flush are applied again after the restart, which is exactly what the daemon does
// (the model is rebuilt from the journal after the cursor). The check: every entry applied
// is the next line expected — nothing lost, nothing twice — across all restarts, and at the
// end every line has been applied.
func TestJournalCrashResume(t *testing.T) {
	n := journalTestSize(20_000, 50_000, 200_000)
	journalBackends(t, func(t *testing.T, b Backend) {
		j := journaltest.StartJournald(t)
		store := NewCursorStore(t.TempDir())
		start := time.Now()
		werr := make(chan error, 1)
		go func() {
			for i := range n {
				if err := j.Send("sglang.service", "python3", journaltest.Numbered("line", i)); err != nil {
					werr <- err
					return
				}
			}
			werr <- nil
		}()
		rng := rand.New(rand.NewPCG(uint64(n), uint64(b)))
		var (
			applied, durable int // lines applied in memory / on disk with the cursor
			crashes, flushes int
			e                ingest.Entry
		)
		deadline := time.Now().Add(3 * time.Minute)
		for applied < n {
			c, err := store.Load()
			if err != nil {
				t.Fatal(err)
			}
			src, err := Open(Options{Dir: j.Dir(), Backend: b, Units: []string{"sglang.service"},
				Warn: func(m string) {
					// journalctl can find the file journald is growing shorter than its header
					// says ("is truncated, ignoring file") and exit; the source restarts it after
					// the last entry read, and the sequence check below holds it to exactly once.
					if b == Journalctl && strings.Contains(m, "journalctl exited") &&
						strings.HasSuffix(m, "restarting it after the last entry read") {
						t.Logf("warning: %s", m)
						return
					}
					t.Errorf("warning: %s", m)
				}, Start: AfterCursor(c, Since(start))})
			if err != nil {
				t.Fatal(err)
			}
			life := 1 + rng.IntN(n/10) // entries until this incarnation crashes
			nextFlush := rng.IntN(500)
			for k := 0; k < life && applied < n; {
				if time.Now().After(deadline) {
					t.Fatalf("stuck at line %d of %d after %d crashes; stats %+v", applied, n, crashes, src.Stats())
				}
				ok, err := src.Next(&e, time.Second)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					continue
				}
				if got := journaltest.SeqOf(t, string(e.Message)); got != applied {
					t.Fatalf("after %d crashes: applied line %d, expected %d (durable %d): %s", crashes, got, applied, durable,
						map[bool]string{true: "duplicate", false: "lost lines"}[got < applied])
				}
				applied++
				store.Mark(e.Cursor)
				k++
				if nextFlush--; nextFlush <= 0 {
					if err := store.Flush(); err != nil {
						t.Fatal(err)
					}
					durable = applied // one atomic step with the cursor
					flushes++
					nextFlush = rng.IntN(500)
				}
			}
			if st := src.Stats(); st.CursorMissing != 0 || st.Duplicates != 0 {
				t.Fatalf("stats %+v", st)
			}
			src.Close() // a crash: no final flush
			if applied < n {
				crashes++
				applied = durable
			}
		}
		if err := <-werr; err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d lines, %d crashes, %d flushes, %v", b, n, crashes, flushes, time.Since(start).Round(time.Millisecond))
		if crashes < 5 {
			t.Fatalf("only %d crashes: the test did not exercise resuming", crashes)
		}
	})
}

// TestJournalCursorVacuumed: the saved cursor's entry, and five unread lines after it, are
// vacuumed while the reader is down. The reader resumes at the next entry still there, counts
// CursorMissing and the size of the loss (LostEntries, from the cursors' sequence numbers), and
// says both in one warning; the rest arrive once.
func TestJournalCursorVacuumed(t *testing.T) {
	journalBackends(t, func(t *testing.T, b Backend) {
		j := journaltest.StartJournald(t)
		start := time.Now()
		for i := range 10 {
			j.Write("a.service", "a", journaltest.Numbered("a", i))
		}
		src := openJ(t, Options{Dir: j.Dir(), Backend: b, Units: []string{"a.service"}, Start: Since(start)})
		got := journaltest.ReadN(t, src, 10, 10*time.Second)
		cursor := got[9].Cursor
		src.Close()

		for i := 10; i < 15; i++ { // written while the reader is down, never read
			j.Write("a.service", "a", journaltest.Numbered("a", i))
		}
		j.Rotate() // lines 0-14 are archived in the oldest file
		for i := 15; i < 25; i++ {
			j.Write("a.service", "a", journaltest.Numbered("a", i))
		}
		j.Rotate()
		for i := 25; i < 30; i++ {
			j.Write("a.service", "a", journaltest.Numbered("a", i))
		}
		j.Sync()
		j.Vacuum(2) // deletes the oldest file, with the saved entry
		var warned []string
		src = openJ(t, Options{Dir: j.Dir(), Backend: b, Units: []string{"a.service"},
			Warn: func(m string) { warned = append(warned, m) }, Start: AfterCursor(cursor, Tail())})
		got = journaltest.ReadN(t, src, 15, 10*time.Second)
		journaltest.ExpectQuiet(t, src, 300*time.Millisecond)
		for i, o := range got {
			if journaltest.SeqOf(t, o.Message) != 15+i {
				t.Fatalf("entry %d after resume is %q, want line %d", i, o.Message, 15+i)
			}
		}
		st := src.Stats()
		if st.CursorMissing != 1 || len(warned) != 1 || !strings.Contains(warned[0], "were lost") {
			t.Fatalf("CursorMissing %d, warnings %q", st.CursorMissing, warned)
		}
		// Five of a.service's lines were lost; journald's own entries in between (none are
		// expected in a namespace) would add to the bound, never subtract.
		if st.LostEntries < 5 || st.LostEntries > 10 || !strings.Contains(warned[0], fmt.Sprintf("up to %d journal entries", st.LostEntries)) {
			t.Fatalf("LostEntries %d (want 5, at most a few more), warning %q", st.LostEntries, warned[0])
		}
	})
}

// TestJournalResumeExisting: with the saved entry still there, reading resumes right after
// it, and nothing is counted.
func TestJournalResumeExisting(t *testing.T) {
	journalBackends(t, func(t *testing.T, b Backend) {
		j := journaltest.StartJournald(t)
		for i := range 6 {
			j.Write("a.service", "a", journaltest.Numbered("a", i))
		}
		src := openJ(t, Options{Dir: j.Dir(), Backend: b, Units: []string{"a.service"}, Start: Head()})
		got := journaltest.ReadN(t, src, 3, 10*time.Second)
		src.Close()
		src = openJ(t, Options{Dir: j.Dir(), Backend: b, Units: []string{"a.service"}, Start: AfterCursor(got[2].Cursor, Tail())})
		got = journaltest.ReadN(t, src, 3, 10*time.Second)
		if journaltest.SeqOf(t, got[0].Message) != 3 || journaltest.SeqOf(t, got[2].Message) != 5 {
			t.Fatalf("resumed at %v", got)
		}
		journaltest.ExpectQuiet(t, src, 200*time.Millisecond)
		if st := src.Stats(); st.CursorMissing != 0 || st.Duplicates != 0 || st.Entries != 3 {
			t.Fatalf("stats %+v", st)
		}
	})
}

// TestJournalInvalidCursor: a cursor file holding garbage is reported and counted, and
// reading starts at Since as if there were no cursor.
func TestJournalInvalidCursor(t *testing.T) {
	journalBackends(t, func(t *testing.T, b Backend) {
		j := journaltest.StartJournald(t)
		since := time.Now()
		for i := range 3 {
			j.Write("a.service", "a", journaltest.Numbered("a", i))
		}
		var warned []string
		src := openJ(t, Options{Dir: j.Dir(), Backend: b, Units: []string{"a.service"},
			Warn: func(m string) { warned = append(warned, m) }, Start: AfterCursor("garbage", Since(since))})
		journaltest.CheckSequence(t, journaltest.ReadN(t, src, 3, 10*time.Second), 3)
		if st := src.Stats(); st.CursorMissing != 1 || len(warned) != 1 {
			t.Fatalf("CursorMissing %d, warnings %q", st.CursorMissing, warned)
		}
		// Without Since it starts at the tail: only lines written after opening.
		tail := openJ(t, Options{Dir: j.Dir(), Backend: b, Units: []string{"a.service"}, Start: AfterCursor("garbage", Tail())})
		journaltest.ExpectQuiet(t, tail, 300*time.Millisecond)
		j.Write("a.service", "a", journaltest.Numbered("a", 3))
		if got := journaltest.ReadN(t, tail, 1, 10*time.Second); journaltest.SeqOf(t, got[0].Message) != 3 {
			t.Fatalf("after a bad cursor without Since: %v", got)
		}
	})
}
