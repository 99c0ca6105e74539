package backend

import (
	"errors"
	"testing"
	"time"
)

// TestRetryBackoff: the pause doubles from RetryMin to RetryMax, the attempts end in an error
// wrapping the last failure, and progress starts the count again.
func TestRetryBackoff(t *testing.T) {
	var r Retry
	now := time.Unix(1000, 0)
	var waits []time.Duration
	for i := 1; i < RetryAttempts; i++ {
		if err := r.Failed(errors.New("boom"), now); err != nil {
			t.Fatalf("gave up after %d failures", i)
		}
		waits = append(waits, r.At.Sub(now))
	}
	if waits[0] != RetryMin || waits[1] != 2*RetryMin || waits[len(waits)-1] != RetryMax {
		t.Fatalf("backoff %v", waits)
	}
	if err := r.Failed(errors.New("boom"), now); err == nil || !errors.Is(err, r.last) {
		t.Fatalf("no give-up after %d failures: %v", RetryAttempts, err)
	}
	r.Progressed()
	if err := r.Failed(errors.New("again"), now); err != nil || r.At.Sub(now) != RetryMin {
		t.Fatalf("progress did not reset the count: %v", err)
	}
}
