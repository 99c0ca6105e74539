package main

import (
	"sort"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// BenchmarkRunWriteToMetrics measures the latency from a journal write to the sample being
// visible on /metrics (target: p99 ≤ 50 ms). Each iteration writes one line and polls /metrics
// every millisecond until its value shows.
func BenchmarkRunWriteToMetrics(b *testing.B) {
	j := testjournal.Start(b)
	p := startRun(b, "--journal.directory", j.Dir(), "--journal.unit", unit, "--state.directory", b.TempDir())
	for !ready(p.url("/-/ready")) {
		time.Sleep(10 * time.Millisecond)
	}
	var lat []time.Duration
	b.ResetTimer()
	for i := 1; i <= b.N; i++ {
		t0 := time.Now()
		j.Write(unit, "python3", decodeLine(i))
		for {
			if v, _ := testharness.MetricValue(get(p.url("/metrics")), "specwatch_context_tokens", `rank="TP0"`); v == float64(i) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(lat, func(a, c int) bool { return lat[a] < lat[c] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkRunCatchUp measures catching up after an hour offline at 100 lines/s: 360,000
// entries already in the journal when the daemon starts (target ≤ 2 s).
func BenchmarkRunCatchUp(b *testing.B) {
	dir := b.TempDir()
	const n = 360000
	testjournal.BuildFileFunc(b, dir, n, func(i int, e *testjournal.Entry) {
		e.Host, e.Unit, e.Identifier, e.Message = "gpu07", unit, "python3", decodeLine(i+1)
	})
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		t0 := time.Now()
		p := startRun(b, "--journal.directory", dir, "--journal.unit", unit, "--state.directory", b.TempDir(), "--journal.since", "2000-01-01")
		for {
			if v, _ := testharness.MetricValue(get(p.url("/metrics")), "specwatch_lines_total", `result="matched"`); v == n {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		b.ReportMetric(time.Since(t0).Seconds(), "s-to-catch-up")
		p.stop()
	}
}
