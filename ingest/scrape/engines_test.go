package scrape

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/sample"
)

// sglangCounters is SGLang's /metrics with its finished-request counters (collector.py:
// prometheus_client counters, so a _total family and its _created gauge) and the most-recent
// gauge beside them.
func sglangCounters(verify, gen, accLen float64) string {
	var b strings.Builder
	l := `engine_type="unified",model_name="Qwen/Qwen3-8B",pp_rank="0",tp_rank="0"`
	for _, c := range []struct {
		name, help string
		v          float64
	}{
		{"sglang:generation_tokens", "Number of generation tokens processed.", gen},
		{"sglang:spec_verify_calls", "The number of verification forward calls in the speculative decoding.", verify},
	} {
		fmt.Fprintf(&b, "# HELP %s_total %s\n# TYPE %s_total counter\n%s_total{%s} %s\n", c.name, c.help, c.name, c.name, l, pyFloat(c.v))
		fmt.Fprintf(&b, "# HELP %s_created %s\n# TYPE %s_created gauge\n%s_created{%s} 1.7331840123456e+09\n", c.name, c.help, c.name, c.name, l)
	}
	fmt.Fprintf(&b, "# HELP sglang:spec_accept_length The average acceptance length of speculative decoding.\n# TYPE sglang:spec_accept_length gauge\nsglang:spec_accept_length{%s} %s\n", l, pyFloat(accLen))
	fmt.Fprintf(&b, "# HELP sglang:num_running_reqs The number of running requests.\n# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs{%s} 4.0\n", l)
	return b.String()
}

// TestSGLangVerifyCalls: spec_verify_calls_total and generation_tokens_total move only when a
// request finishes. A scrape at which none finished gives no commit length (not 0, not 1, and
// not the most-recent gauge either); the next one that moved measures from the last movement.
func TestSGLangVerifyCalls(t *testing.T) {
	ep := newEndpoint(t)
	clk, sk := newFakeClock(), &sink{}
	src := newSource(t, clk, sk, nil, 0, Target{URL: ep.URL})
	scrape := func(body string) []sample.Sample {
		t.Helper()
		ep.serve(body)
		if err := src.Scrape(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		clk.advance(every)
		return sk.take()
	}
	none(t, scrape(sglangCounters(1000, 3000, 3.4)), sample.Commit) // the start
	got := scrape(sglangCounters(1000, 3000, 3.9))                  // requests running, none finished
	none(t, got, sample.Commit)
	// one rank (tp_size 1): its log prefix names no rank, and neither does the series
	if d := one(t, got, sample.KindDecode); d.Value(sample.Running) != 4 || string(d.Rank) != "" {
		t.Fatalf("decode sample without the commit: %+v", d)
	}
	none(t, scrape(sglangCounters(1000, 3000, 2.0)), sample.Commit)
	// two requests finished: 400 verify steps, 1,300 tokens
	d := one(t, scrape(sglangCounters(1400, 4300, 2.0)), sample.KindDecode)
	near(t, "commit length of the finished requests", d.Value(sample.Commit), 1300.0/400, 1e-9)
	near(t, "their verify steps", d.Value(sample.Steps), 400, 1e-9)
	// a restart: an event, no figure, then measured again from the restart
	got = scrape(sglangCounters(10, 25, 2.0))
	none(t, got, sample.Commit)
	if one(t, got, sample.KindEvent).Event != sample.EventRestart {
		t.Fatal("no restart event")
	}
	d = one(t, scrape(sglangCounters(110, 325, 2.0)), sample.KindDecode)
	near(t, "commit length after the restart", d.Value(sample.Commit), 3, 1e-9)
}

// vllmV0Text is vLLM v0's /metrics (vllm/engine/metrics.py): model_name only, the two gauges
// and three counters of its spec decode worker.
func vllmV0Text(acc, draft, emitted, rate, eff float64) string {
	var b strings.Builder
	l := `model_name="meta-llama/Llama-2-7b-chat-hf"`
	fmt.Fprintf(&b, "# HELP vllm:spec_decode_draft_acceptance_rate Speulative token acceptance rate.\n# TYPE vllm:spec_decode_draft_acceptance_rate gauge\nvllm:spec_decode_draft_acceptance_rate{%s} %s\n", l, pyFloat(rate))
	fmt.Fprintf(&b, "# HELP vllm:spec_decode_efficiency Speculative decoding system efficiency.\n# TYPE vllm:spec_decode_efficiency gauge\nvllm:spec_decode_efficiency{%s} %s\n", l, pyFloat(eff))
	for _, c := range []struct {
		name string
		v    float64
	}{{"accepted_tokens", acc}, {"draft_tokens", draft}, {"emitted_tokens", emitted}} {
		if c.v < 0 {
			continue
		}
		n := "vllm:spec_decode_num_" + c.name
		fmt.Fprintf(&b, "# HELP %s_total Number of %s.\n# TYPE %s_total counter\n%s_total{%s} %s\n", n, strings.ReplaceAll(c.name, "_", " "), n, n, l, pyFloat(c.v))
	}
	return b.String()
}

// TestVLLMV0: v0 counts no verify steps; each step emits its accepted tokens and one more, so
// commit length = Δemitted / (Δemitted − Δaccepted). Without the counters, the gauges give it.
func TestVLLMV0(t *testing.T) {
	ep := newEndpoint(t)
	clk, sk := newFakeClock(), &sink{}
	src := newSource(t, clk, sk, nil, 0, Target{URL: ep.URL})
	scrape := func(body string) []sample.Sample {
		t.Helper()
		ep.serve(body)
		if err := src.Scrape(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		clk.advance(every)
		return sk.take()
	}
	scrape(vllmV0Text(3000, 5000, 4000, 0.6, 0.667))
	// 100 steps of k = 5: 500 drafted, 310 accepted, 410 emitted
	s := one(t, scrape(vllmV0Text(3310, 5500, 4410, 0.6, 0.667)), sample.KindSpec)
	near(t, "v0 commit length", s.Value(sample.Commit), 4.1, 1e-9)
	if s.Value(sample.Accepted) != 310 || s.Value(sample.Drafted) != 500 || s.Value(sample.AcceptRate) != 0.6 || string(s.Rank) != "" {
		t.Errorf("v0 spec sample: %+v", s)
	}
	// gauges alone: α = 0.6, k = 5 → e = (0.6·5 + 1)/6; commit = αk + 1 = 4
	s = one(t, scrape(vllmV0Text(-1, -1, -1, 0.6, 4.0/6)), sample.KindSpec)
	near(t, "v0 commit length from the gauges", s.Value(sample.Commit), 4, 1e-9)
}

// TestLlamaCppNames: the speculative counters as ggml-org/llama.cpp pull request 26389 spells
// them (no _total), and the per-position family absent before a speculative request completed.
func TestLlamaCppNames(t *testing.T) {
	body := func(drafts, tokens, acc, gen, secs float64, perPos ...float64) string {
		var b strings.Builder
		for _, c := range []struct {
			name string
			v    float64
		}{{"spec_decode_num_draft_tokens", tokens}, {"spec_decode_num_accepted_tokens", acc}, {"spec_decode_num_drafts", drafts},
			{"tokens_predicted_total", gen}, {"tokens_predicted_seconds_total", secs}} {
			fmt.Fprintf(&b, "# HELP llamacpp:%s x\n# TYPE llamacpp:%s counter\nllamacpp:%s %s\n", c.name, c.name, c.name, cppFloat(c.v))
		}
		if len(perPos) > 0 {
			b.WriteString("# HELP llamacpp:spec_decode_num_accepted_tokens_per_pos x\n# TYPE llamacpp:spec_decode_num_accepted_tokens_per_pos counter\n")
			for i, p := range perPos {
				fmt.Fprintf(&b, "llamacpp:spec_decode_num_accepted_tokens_per_pos{position=\"%d\"} %s\n", i, cppFloat(p))
			}
		}
		return b.String()
	}
	ep := newEndpoint(t)
	clk, sk := newFakeClock(), &sink{}
	src := newSource(t, clk, sk, nil, 0, Target{URL: ep.URL})
	for i, b := range []string{body(0, 0, 0, 0, 0), body(100, 300, 150, 250, 2.5, 70, 50, 30), body(200, 600, 290, 500, 5, 140, 95, 55)} {
		ep.serve(b)
		if err := src.Scrape(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		clk.advance(every)
		got := sk.take()
		if i == 0 {
			continue // the first scrape starts the interval
		}
		s := one(t, got, sample.KindSpec)
		near(t, "tok/s", s.Value(sample.GenTPS), 100, 1e-9)
		want := []float64{0.7, 0.5, 0.3} // the start had no list and nothing accepted: all 0
		if i == 2 {
			want = []float64{0.7, 0.45, 0.25}
		}
		if s.Has(sample.Commit) || s.NPos != 3 || math.Abs(s.PerPos[1]-want[1]) > 1e-9 || math.Abs(s.PerPos[2]-want[2]) > 1e-9 {
			t.Errorf("scrape %d: commit %v, per position %v, want none and %v", i, s.Has(sample.Commit), s.PerPos[:s.NPos], want)
		}
	}
}

// TestSGLangRankNames: ranks are named as SGLang's scheduler prefixes its log lines, from the
// labels of all the ranks one /metrics carries.
func TestSGLangRankNames(t *testing.T) {
	body := func(ranks ...[4]string) string {
		var b strings.Builder
		b.WriteString("# HELP sglang:num_running_reqs x\n# TYPE sglang:num_running_reqs gauge\n")
		for _, r := range ranks {
			l := `model_name="m",pp_rank="` + r[1] + `",tp_rank="` + r[2] + `"`
			if r[0] != "" {
				l += `,dp_rank="` + r[0] + `"`
			}
			if r[3] != "" {
				l += `,moe_ep_rank="` + r[3] + `"`
			}
			fmt.Fprintf(&b, "sglang:num_running_reqs{%s} 1.0\n", l)
		}
		return b.String()
	}
	for _, c := range []struct {
		ranks [][4]string
		sizes Sizes
		want  []string
	}{
		{[][4]string{{"", "0", "0", ""}}, Sizes{}, []string{""}},
		{[][4]string{{"", "0", "0", ""}, {"", "0", "1", ""}}, Sizes{}, []string{"TP0", "TP1"}},
		{[][4]string{{"0", "0", "0", "0"}, {"1", "0", "1", "1"}}, Sizes{}, []string{"DP0 TP0 EP0", "DP1 TP1 EP1"}},
		{[][4]string{{"", "0", "0", ""}, {"", "1", "0", ""}}, Sizes{}, []string{"PP0", "PP1"}},
		// Data parallel without DP attention, TP 2: each replica's TP rank 0 exports alone, and
		// logs as "DP1 TP0"; only the target's tp_size can say so.
		{[][4]string{{"0", "0", "0", ""}, {"1", "0", "0", ""}}, Sizes{}, []string{"DP0", "DP1"}},
		{[][4]string{{"0", "0", "0", ""}, {"1", "0", "0", ""}}, Sizes{TP: 2}, []string{"DP0 TP0", "DP1 TP0"}},
		{[][4]string{{"", "0", "0", ""}}, Sizes{TP: 4, PP: 2}, []string{"PP0 TP0"}},
	} {
		r := Readings{SGLang: c.sizes}
		if err := Decode([]byte(body(c.ranks...)), "", &r); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if _, ok := r.ranks[rankKey{sample.EngineSGLang, w}]; !ok || r.Len() != len(c.want) {
				t.Errorf("%v: ranks %v, want %q", c.ranks, r.ranks, c.want)
			}
		}
	}
}
