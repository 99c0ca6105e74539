package main

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// BenchmarkRunWarmRestart measures what a restart costs with the default warm-up (3h): the
// journal holds 360,000 decode lines over the three hours before the saved cursor (33 lines/s),
// and the restarted daemon replays them before it resumes. It reports the wall time from start
// to ready, the replay's own time as the daemon logs it, and the restarted process's peak RSS
// (VmHWM): the replay streams entries into the model, whose size the series cap bounds.
func BenchmarkRunWarmRestart(b *testing.B) {
	dir, state := b.TempDir(), b.TempDir()
	const n = 360000
	end := time.Now().Truncate(time.Second)
	testjournal.BuildFileFunc(b, dir, n, func(i int, e *testjournal.Entry) {
		e.Time = end.Add(-3 * time.Hour).Add(time.Duration(i) * 3 * time.Hour / n)
		e.Host, e.Unit, e.Identifier, e.Message = "gpu07", unit, "python3", decodeLine(i+1)
	})
	first := startRun(b, "--journal.directory", dir, "--journal.unit", unit, "--state.directory", state, "--journal.since", "2000-01-01")
	for !ready(first.url("/-/ready")) {
		time.Sleep(10 * time.Millisecond)
	}
	first.cmd.Process.Signal(syscall.SIGTERM)
	first.wait()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		t0 := time.Now()
		p := startRun(b, "--journal.directory", dir, "--journal.unit", unit, "--state.directory", state)
		for !ready(p.url("/-/ready")) {
			time.Sleep(5 * time.Millisecond)
		}
		b.ReportMetric(time.Since(t0).Seconds(), "s-to-ready")
		for _, line := range strings.Split(p.logs(), "\n") {
			var m struct {
				Message string  `json:"message"`
				Entries float64 `json:"entries"`
				Took    float64 `json:"took_seconds"`
			}
			if json.Unmarshal([]byte(line), &m) == nil && strings.Contains(m.Message, "warm restart") {
				b.ReportMetric(m.Entries, "entries-replayed")
				b.ReportMetric(m.Took, "s-replay")
			}
		}
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/status"); err == nil {
			for _, l := range strings.Split(string(st), "\n") {
				if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
					kb, _ := strconv.ParseFloat(f[1], 64)
					b.ReportMetric(kb/1024, "VmHWM-MB")
				}
			}
		}
		p.cmd.Process.Signal(syscall.SIGTERM)
		p.wait()
	}
}
