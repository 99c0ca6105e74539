package journalctl_test

import (
	"errors"
	"syscall"
	"testing"
	"time"
)

func TestRetryBackoff(t *testing.T) {
	var r retry
	now := time.Unix(1000, 0)
	var waits []time.Duration
	for i := 1; i < retryAttempts; i++ {
		if err := r.failed(errors.New("boom"), now); err != nil {
			t.Fatalf("gave up after %d failures", i)
		}
		waits = append(waits, r.at.Sub(now))
	}
	if waits[0] != retryMin || waits[1] != 2*retryMin || waits[len(waits)-1] != retryMax {
		t.Fatalf("backoff %v", waits)
	}
	if err := r.failed(errors.New("boom"), now); err == nil || !errors.Is(err, r.last) {
		t.Fatalf("no give-up after %d failures: %v", retryAttempts, err)
	}
	r.progressed()
	if err := r.failed(errors.New("again"), now); err != nil || r.at.Sub(now) != retryMin {
		t.Fatalf("progress did not reset the count: %v", err)
	}
}

// TestJournalctlKilled: journalctl dying mid-stream (killed twice) is restarted after the
// last cursor returned: nothing lost, nothing twice, two reopens counted and reported.
func TestJournalctlKilled(t *testing.T) {
	const n = 3000
	j := startJournald(t)
	var warned []string
	src := openJ(t, JournalOptions{Dir: j.Dir(), Backend: BackendJournalctl, Units: []string{"sglang.service"},
		Warn: func(m string) { warned = append(warned, m) }})
	errc := streamLines(j, n, 5*time.Millisecond, false)
	var got []owned
	var e Entry
	deadline := time.Now().Add(time.Minute)
	for len(got) < n && time.Now().Before(deadline) {
		ok, err := src.Next(&e, 200*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		got = append(got, own(&e))
		if len(got) == n/3 || len(got) == 2*n/3 {
			src.(*ctlSource).p.cmd.Process.Signal(syscall.SIGKILL)
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	// When the stream outruns the kills, the second journalctl may have printed every entry
	// before it was killed: its exit then comes after the last entry. Wait for it (and make
	// sure the restart brings nothing twice).
	for time.Now().Before(deadline) && src.Stats().Reopens < 2 {
		if ok, err := src.Next(&e, 200*time.Millisecond); err != nil {
			t.Fatal(err)
		} else if ok {
			got = append(got, own(&e))
		}
	}
	checkSequence(t, got, n)
	if st := src.Stats(); st.Reopens != 2 || len(warned) != 2 || st.Duplicates != 0 || st.CursorMissing != 0 {
		t.Fatalf("stats %+v, warnings %q", st, warned)
	}
}
