package procstat

import (
	"os"
	"testing"
)

// This process has run and holds memory: its ticks count up and its RSS is above zero.
func TestSelf(t *testing.T) {
	t0, err := Ticks(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	t1, err := Ticks(os.Getpid())
	if err != nil || t1 < t0 || x == 0 {
		t.Errorf("ticks %d then %d (%v)", t0, t1, err)
	}
	if rss, err := KB(os.Getpid(), "VmRSS:"); err != nil || !(rss > 0) {
		t.Errorf("VmRSS %v kB (%v)", rss, err)
	}
	if _, err := Ticks(-1); err == nil {
		t.Error("no error for a process that cannot exist")
	}
}
