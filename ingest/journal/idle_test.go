package journal

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
)

// procCounters reads a task's voluntary context switches (its wake-ups after sleeping) and
// its CPU time from /proc; path is /proc/PID or /proc/self/task/TID.
func procCounters(t *testing.T, path string) (wakeups int64, cpu time.Duration) {
	t.Helper()
	status, err := os.ReadFile(path + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
			wakeups, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	stat, err := os.ReadFile(path + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64) // utime, stime: fields 14 and 15 of stat(5)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return wakeups, time.Duration(ut+st) * time.Second / 100 // USER_HZ is 100 on Linux
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestJournalIdle: following a journal that stays quiet costs about one wake-up per wait
// period (Next's wait, 1 s here) and next to no CPU. It reports the waits counted by the
// source, the wake-ups of the thread that owns the sdjournal handle (or of journalctl), and
// the CPU time of the whole test process, over 3 s (10 s with SPECWATCH_LONG_TESTS=1).
func TestJournalIdle(t *testing.T) {
	idle := 3 * time.Second
	if os.Getenv("SPECWATCH_LONG_TESTS") != "" {
		idle = 10 * time.Second
	}
	journalBackends(t, func(t *testing.T, b Backend) {
		j := journaltest.StartJournald(t)
		j.Write("other.service", "other", []byte("noise before"))
		src := openJ(t, Options{Dir: j.Dir(), Backend: b, Units: []string{"quiet.service"}})
		var e ingest.Entry
		src.Next(&e, 100*time.Millisecond) // settle: first sd_journal_wait sets up inotify

		task := "/proc/self" // native: no thread or process of its own
		inner := src
		if f, ok := src.(interface{ Unwrap() Source }); ok { // Open's fallback wrapper
			inner = f.Unwrap()
		}
		switch s := inner.(type) {
		case interface{ PID() int }: // journalctl
			task = fmt.Sprintf("/proc/%d", s.PID())
		case interface{ ThreadID() int }: // sdjournal
			task = fmt.Sprintf("/proc/self/task/%d", s.ThreadID())
		}
		w0, c0 := procCounters(t, task)
		waits0, cpu0, start := src.Stats().Waits, processCPU(), time.Now()
		for time.Since(start) < idle {
			if ok, err := src.Next(&e, time.Second); ok || err != nil {
				t.Fatalf("idle journal: ok=%v err=%v", ok, err)
			}
		}
		elapsed := time.Since(start)
		w1, c1 := procCounters(t, task)
		waits, cpu := src.Stats().Waits-waits0, processCPU()-cpu0
		secs := elapsed.Seconds()
		t.Logf("%s idle %.1fs: %d waits (%.2f/s); %s: %d wake-ups (%.2f/s), %v CPU; test process CPU %v (%.2f%% of a core)",
			b, secs, waits, float64(waits)/secs, map[Backend]string{Journalctl: "journalctl", SDJournal: "reading thread", Native: "test process"}[b],
			w1-w0, float64(w1-w0)/secs, c1-c0, cpu, 100*cpu.Seconds()/secs)
		if float64(waits) > secs+2 {
			t.Errorf("%d waits in %.1fs: more than one per second", waits, secs)
		}
		// Each wait wakes the reading thread for the request, for the inotify event or the
		// timeout, and for the reply; a GC or a scheduler park under -race adds one now and
		// then (13 for 4 waits was seen in CI). Polling would be tens to hundreds per second.
		if b == SDJournal && w1-w0 > 4*waits+3 {
			t.Errorf("reading thread woke %d times in %.1fs for %d waits", w1-w0, secs, waits)
		}
		// journalctl -f sleeps in sd_journal_wait; it wakes when journald touches its files
		// (4 in 3 s was seen), not on a timer. A poll of 100 ms would be 30.
		if b == Journalctl && float64(w1-w0) > 2*secs+3 {
			t.Errorf("journalctl woke %d times in %.1fs while idle", w1-w0, secs)
		}
		if cpu > elapsed/20 {
			t.Errorf("idle follow used %v CPU in %v", cpu, elapsed)
		}
	})
}
