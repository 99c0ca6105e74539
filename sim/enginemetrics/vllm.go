// Package enginemetrics is simulated engines' /metrics as their own exporters write them: what
// the demo scrapes and tests compare the scrape source with (the simulator writes the logs).
package enginemetrics

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// VLLM is a vLLM v1 engine's /metrics as a function of its uptime: the speculative
// counters (drafts, draft tokens, accepted tokens, accepted per position), generation tokens,
// running and waiting requests and KV cache usage, written as vLLM's prometheus_client writes
// them. It is deterministic (no random numbers), so the demo's scrapes and tests see the same
// engine. The zero value is an MTP-style drafter with num_speculative_tokens 5 whose last two
// positions rarely pay, the case the per-position advice is about.
type VLLM struct {
	// Rates is the acceptance per draft position (0-1, decreasing); nil: 0.72, 0.48, 0.27,
	// 0.06, 0.02.
	Rates []float64
	// DraftsPerSecond is the verify steps per second (0: 150).
	DraftsPerSecond float64
	Model           string // model_name (default "Qwen/Qwen3-32B")
	// PerPosDrafts exports vllm:spec_decode_num_draft_tokens_per_pos, as newer builds do, with
	// a draft length that varies: position i is drafted in a share 1 − 0.15·i of the steps.
	PerPosDrafts bool
}

// DraftsAt is the draft tokens proposed at each position after up seconds (PerPosDrafts).
func (m *VLLM) DraftsAt(up time.Duration) []float64 {
	rates, rate := m.defaults()
	out := make([]float64, len(rates))
	for i := range rates {
		out[i] = math.Floor(rate * up.Seconds() * (1 - 0.15*float64(i)))
	}
	return out
}

// Truth is what the counters hold after up seconds of uptime: the ground truth a test
// compares the scrape source's figures with.
func (m *VLLM) Truth(up time.Duration) (drafts float64, perPos []float64) {
	rates, rate := m.defaults()
	s := up.Seconds()
	drafts = math.Floor(rate * s)
	// acceptance swings by ±4 % over a ten-minute period, the same at every position
	swing := func(t float64) float64 { return t + 0.04*600/(2*math.Pi)*(1-math.Cos(2*math.Pi*t/600)) }
	for _, r := range rates {
		perPos = append(perPos, math.Floor(rate*r*swing(s)))
	}
	return drafts, perPos
}

func (m *VLLM) defaults() ([]float64, float64) {
	rates, rate := m.Rates, m.DraftsPerSecond
	if rates == nil {
		rates = []float64{0.72, 0.48, 0.27, 0.06, 0.02}
	}
	if rate <= 0 {
		rate = 150
	}
	return rates, rate
}

// Exposition is the engine's /metrics body after up seconds of uptime.
func (m *VLLM) Exposition(up time.Duration) []byte {
	rates, _ := m.defaults()
	model := m.Model
	if model == "" {
		model = "Qwen/Qwen3-32B"
	}
	drafts, perPos := m.Truth(up)
	accepted := 0.0
	for _, p := range perPos {
		accepted += p
	}
	s := up.Seconds()
	var b strings.Builder
	l := fmt.Sprintf(`engine="0",model_name="%s"`, model)
	gauge := func(name, help string, v float64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n%s{%s} %s\n", name, help, name, name, l, pyFloat(v))
	}
	counter := func(name, help string, v float64) {
		fmt.Fprintf(&b, "# HELP %s_total %s\n# TYPE %s_total counter\n%s_total{%s} %s\n", name, help, name, name, l, pyFloat(v))
		fmt.Fprintf(&b, "# HELP %s_created %s\n# TYPE %s_created gauge\n%s_created{%s} 1.7646e+09\n", name, help, name, name, l)
	}
	gauge("vllm:num_requests_running", "Number of requests in model execution batches.", 12)
	gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", math.Floor(2+2*math.Sin(s/97)))
	gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", math.Round(1000*(0.35+0.2*math.Sin(s/311)))/1000)
	counter("vllm:generation_tokens", "Number of generation tokens processed.", drafts+accepted)
	counter("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", drafts)
	counter("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", drafts*float64(len(rates)))
	counter("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.", accepted)
	n := "vllm:spec_decode_num_accepted_tokens_per_pos"
	fmt.Fprintf(&b, "# HELP %s_total Accepted tokens per draft position.\n# TYPE %s_total counter\n", n, n)
	for i, p := range perPos {
		fmt.Fprintf(&b, "%s_total{%s,position=\"%d\"} %s\n", n, l, i, pyFloat(p))
	}
	if m.PerPosDrafts {
		n = "vllm:spec_decode_num_draft_tokens_per_pos"
		fmt.Fprintf(&b, "# HELP %s_total Draft tokens per draft position.\n# TYPE %s_total counter\n", n, n)
		for i, d := range m.DraftsAt(up) {
			fmt.Fprintf(&b, "%s_total{%s,position=\"%d\"} %s\n", n, l, i, pyFloat(d))
		}
	}
	return []byte(b.String())
}

// pyFloat formats like Python's repr of a float, as prometheus_client writes values.
func pyFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e16 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprint(v)
}
