package journal

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// benchUnits share the benchmark journal round-robin: reading one of them reads a quarter.
var benchUnits = []string{"sglang.service", "vllm.service", "llama.service", "other.service"}

// benchJournal builds (once per benchmark run) a journal of n entries from four units, split
// in one file per CPU so that systemd-journal-remote (about 40 µs per entry) builds them in
// parallel; a real journal is many files too. SPECWATCH_BENCH_DIR names a directory to keep
// and reuse it across runs. It skips when building would take more than five minutes.
func benchJournal(b *testing.B, n int) string {
	b.Helper()
	dir := os.Getenv("SPECWATCH_BENCH_DIR")
	if dir != "" {
		dir = filepath.Join(dir, fmt.Sprintf("journal-%d", n))
		if _, err := os.Stat(filepath.Join(dir, "complete")); err == nil {
			return dir
		}
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
	} else {
		dir = b.TempDir()
	}
	gen := func(i int, e *testjournal.Entry) {
		e.Host = "gpu07"
		e.Unit = benchUnits[i%len(benchUnits)]
		e.Identifier = "python3"
		e.Time = testjournal.FixtureEpoch.Add(time.Duration(i) * 100 * time.Microsecond)
		e.Message = fmt.Appendf(e.Message[:0], "[2026-11-20 09:00:01 TP0] Decode batch, #running-req: %d, #token: %d, token usage: 0.%02d, accept len: 2.90, accept rate: 0.13, cuda graph: True, gen throughput (token/s): 31.87, #queue-req: 0", i%64, 1000+i%100000, i%100)
	}
	probe := time.Now()
	testjournal.BuildFileFunc(b, b.TempDir(), 2000, gen)
	parts := runtime.GOMAXPROCS(0)
	if est := time.Since(probe) * time.Duration(n/2000/parts); est > 5*time.Minute {
		b.Skipf("building a %d-entry journal would take about %v here", n, est)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := n*p/parts, n*(p+1)/parts
		sub := filepath.Join(dir, strconv.Itoa(p))
		os.Mkdir(sub, 0o755)
		wg.Go(func() {
			testjournal.BuildFileFunc(b, sub, hi-lo, func(i int, e *testjournal.Entry) { gen(lo+i, e) })
			// journal-remote rotates at its size limit: move all of the part's files.
			files, _ := filepath.Glob(filepath.Join(sub, "*.journal"))
			for k, f := range files {
				os.Rename(f, filepath.Join(dir, fmt.Sprintf("part-%d-%d.journal", p, k)))
			}
			os.Remove(sub)
		})
	}
	wg.Wait()
	os.WriteFile(filepath.Join(dir, "complete"), nil, 0o644)
	b.Logf("built a %d-entry journal in %d files in %v", n, parts, time.Since(start).Round(time.Second))
	return dir
}

// BenchmarkJournalRead1M reads one unit (250,000 entries) out of a 1,000,000-entry journal
// with each backend, from open to the last entry, and compares with what an operator would
// run: `journalctl -D DIR -u UNIT -o cat > /dev/null`. Both are timed in wall time and in CPU
// time (the process's for sdjournal, whose owner thread does the reading; journalctl's own),
// best of the runs, journalctl being run between our runs so that both see the same machine
// load.
// Metrics: entries/s and cpu-entries/s for each, and x-journalctl, the ratio of CPU rates.
func BenchmarkJournalRead1M(b *testing.B) {
	const n = 1_000_000
	want := n / len(benchUnits)
	dir := benchJournal(b, n)
	unit := benchUnits[0]

	for _, c := range []struct {
		name    string
		backend Backend
	}{{"sdjournal", SDJournal}, {"native", Native}, {"journalctl-backend", Journalctl}} {
		b.Run(c.name, func(b *testing.B) {
			if c.backend == SDJournal && SDJournalAvailable() != nil {
				b.Skip("no sdjournal backend in this build")
			}
			var best, ctl timing
			var e ingest.Entry
			for b.Loop() {
				ctl.keep(runJournalctl(b, dir, unit))
				t0, c0 := time.Now(), processCPU()
				src, err := Open(Options{Dir: dir, Backend: c.backend, Units: []string{unit}, Start: Head()})
				if err != nil {
					b.Fatal(err)
				}
				for got := 0; got < want; got++ {
					if ok, err := src.Next(&e, time.Second); err != nil || !ok {
						b.Fatalf("after %d entries: ok=%v err=%v", got, ok, err)
					}
				}
				src.Close()
				best.keep(timing{time.Since(t0), processCPU() - c0})
			}
			rate := func(d time.Duration) float64 { return float64(want) / d.Seconds() }
			b.ReportMetric(rate(best.wall), "entries/s")
			b.ReportMetric(rate(ctl.wall), "journalctl-entries/s")
			if c.backend != Journalctl { // the journalctl backend's CPU is in two processes
				b.ReportMetric(rate(best.cpu), "cpu-entries/s")
				b.ReportMetric(rate(ctl.cpu), "journalctl-cpu-entries/s")
				b.ReportMetric(ctl.cpu.Seconds()/best.cpu.Seconds(), "x-journalctl")
			}
		})
	}
}

// timing is one run's wall and CPU time; keep retains the fastest of each.
type timing struct{ wall, cpu time.Duration }

func (t *timing) keep(r timing) {
	if t.wall == 0 || r.wall < t.wall {
		t.wall = r.wall
	}
	if t.cpu == 0 || r.cpu < t.cpu {
		t.cpu = r.cpu
	}
}

func runJournalctl(b *testing.B, dir, unit string) timing {
	cmd := exec.Command("journalctl", "-D", dir, "-u", unit, "-o", "cat", "--no-pager")
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	cmd.Stdout = devnull
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("journalctl: %v", err)
	}
	return timing{time.Since(t0), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
}
