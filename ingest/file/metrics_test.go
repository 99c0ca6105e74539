package file

import (
	"os"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestCollectWhileReading: the follower is its own collector. It exports nothing before its
// first Next, and a registry gathering on another goroutine while lines are read (the race
// detector watches) ends with the counters of everything read once the reader is idle.
func TestCollectWhileReading(t *testing.T) {
	f := followIn(t, Options{}, "*.log")
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(f.src)
	if n, err := testutil.GatherAndCount(reg); err != nil || n != 0 {
		t.Fatalf("before the first Next: %d metrics (%v), want none", n, err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := reg.Gather(); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := range 20 {
		f.write("engine.log", 10*i+1, 10*i+10)
		f.drain()
	}
	close(stop)
	wg.Wait()
	fi, err := os.Stat(f.path("engine.log"))
	if err != nil {
		t.Fatal(err)
	}
	if got := valueOf(t, reg, "specwatch_file_read_bytes_total"); got != float64(fi.Size()) || len(f.lines) != 200 {
		t.Errorf("read_bytes %v after %d lines, want the file's %d bytes after 200", got, len(f.lines), fi.Size())
	}
	if got := valueOf(t, reg, "specwatch_file_watched_files"); got != 1 {
		t.Errorf("watched_files %v, want 1", got)
	}
}

// valueOf is the value of the one unlabelled metric named name that reg gathers.
func valueOf(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			m := mf.GetMetric()[0]
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("%s not gathered", name)
	return 0
}
