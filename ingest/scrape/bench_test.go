package scrape

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sample"
)

// vllmFull is a vLLM v1 exposition of realistic size: the speculative-decoding counters and
// gauges of the fixture plus the histograms vLLM serves (TTFT, TPOT, ITL, e2e, queue, prefill,
// decode, inference, prompt and generation tokens, …: 14 of about 20 buckets each) and the
// Python process collector, for one engine: about 45 kB.
func vllmFull(v vllm) string {
	var b strings.Builder
	b.WriteString(v.text())
	l := fmt.Sprintf(`engine="%d",%s`, v.engine, vllmModel)
	for h := range 14 {
		name := fmt.Sprintf("vllm:histogram_%d_seconds", h)
		fmt.Fprintf(&b, "# HELP %s Histogram number %d.\n# TYPE %s histogram\n", name, h, name)
		for i := range 20 {
			fmt.Fprintf(&b, "%s_bucket{%s,le=\"%g\"} %d.0\n", name, l, 0.001*float64(int(1)<<i), 100*i)
		}
		fmt.Fprintf(&b, "%s_bucket{%s,le=\"+Inf\"} 2000.0\n%s_count{%s} 2000.0\n%s_sum{%s} 123.456\n", name, l, name, l, name, l)
		fmt.Fprintf(&b, "# HELP %s_created Histogram number %d.\n# TYPE %s_created gauge\n%s_created{%s} 1.7331840123456e+09\n", name, h, name, name, l)
	}
	for _, p := range []string{"process_virtual_memory_bytes", "process_resident_memory_bytes", "process_start_time_seconds", "process_cpu_seconds_total", "process_open_fds", "process_max_fds"} {
		fmt.Fprintf(&b, "# HELP %s x.\n# TYPE %s gauge\n%s 1.234e+09\n", p, p, p)
	}
	return b.String()
}

// BenchmarkScrape16: one scrape of one of 16 vLLM targets on loopback, as Run does it (HTTP,
// decode, counters to samples, the sink); core_pct_16x5s is the share of a core that 16 targets
// every 5 s cost at this speed (the target: ≤ 0.5 %), heap_kB the heap the 16 targets keep.
func BenchmarkScrape16(b *testing.B) {
	eps := make([]*endpoint, 16)
	var targets []Target
	for i := range eps {
		eps[i] = newEndpoint(b)
		eps[i].serve(vllmFull(vllm{engine: 0, drafts: 1e6, draftTokens: 3e6, accepted: 1.7e6, perPos: []float64{8e5, 5.5e5, 3.5e5}, running: 8, genTok: 1e7}))
		targets = append(targets, Target{URL: eps[i].URL + "/metrics", Interval: 5 * time.Second, Timeout: 3 * time.Second})
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	clk := newFakeClock()
	src, err := New(Options{Targets: targets, Sink: discard{}, Metrics: NewMetrics(nil), Clock: clk})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for i := range targets { // warm: buffers, connections, interval starts
		if err := src.Scrape(ctx, i); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.SetBytes(int64(len(vllmFull(vllm{}))))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		clk.advance(5 * time.Second)
		if err := src.Scrape(ctx, i%len(targets)); err != nil {
			b.Fatal(err)
		}
	}
	perScrape := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(100*perScrape*16/5, "core_pct_16x5s")
	b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/1024, "heap_kB")
}

type discard struct{}

func (discard) ApplySample(sample.Result, *sample.Sample) {}
