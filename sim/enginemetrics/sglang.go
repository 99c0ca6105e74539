package enginemetrics

import (
	"fmt"
	"strings"
)

// SGLang is a simulated SGLang server's /metrics (--enable-metrics) at one decode log
// interval: the scheduler's "mostrecent" gauges for the attention-TP rank 0 scheduler, and the
// drafter's own copy of the speculative gauges with engine_type="draft" and the same rank
// labels, as newer builds export them.
type SGLang struct {
	SumSeqLens float64 // decode_sum_seq_lens: the decode batch's summed sequence lengths
	Running    float64
	GenTPS     float64 // gen_throughput: the interval's decode tokens per second (0: not exported)
	AccLen     float64 // spec_accept_length: the interval's mean
	AccRate    float64 // spec_accept_rate: accepted drafts / proposed drafts
	Steps      float64 // spec_num_steps
	DraftToks  float64 // spec_num_draft_tokens
	Verify     float64 // spec_verify_calls_total
	GenTokens  float64 // generation_tokens_total
	Drafter    bool    // export the drafter's series too
}

// Exposition is the /metrics body.
func (s SGLang) Exposition() []byte {
	var b strings.Builder
	main := `engine_type="unified",model_name="Qwen/Qwen3-8B",moe_ep_rank="0",pp_rank="0",tp_rank="0"`
	draft := `engine_type="draft",model_name="draft-model",moe_ep_rank="0",pp_rank="0",tp_rank="0"`
	gauge := func(name, help string, v, dv float64, drafter bool) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name)
		if drafter && s.Drafter {
			fmt.Fprintf(&b, "%s{%s} %s\n", name, draft, pyFloat(dv))
		}
		fmt.Fprintf(&b, "%s{%s} %s\n", name, main, pyFloat(v))
	}
	gauge("sglang:num_running_reqs", "The number of running requests.", s.Running, 0, false)
	if s.GenTPS > 0 {
		gauge("sglang:gen_throughput", "The generation throughput (token/s).", s.GenTPS, 0, false)
	}
	gauge("sglang:decode_sum_seq_lens", "The sum of all sequence lengths in decode.", s.SumSeqLens, 0, false)
	gauge("sglang:spec_accept_length", "Mean acceptance length of speculative decoding (accepted drafts + bonus token per forward).", s.AccLen, 1.1, true)
	gauge("sglang:spec_accept_rate", "Speculative acceptance rate (`accepted drafts / proposed drafts` in batch).", s.AccRate, 0.05, true)
	gauge("sglang:spec_num_steps", "Currently active speculative_num_steps.", s.Steps, 7, true)
	gauge("sglang:spec_num_draft_tokens", "Currently active speculative_num_draft_tokens (decouples from steps under topk>1).", s.DraftToks, 8, true)
	for _, c := range []struct {
		name, help string
		v          float64
	}{
		{"sglang:spec_verify_calls", "The number of verification forward calls in the speculative decoding.", s.Verify},
		{"sglang:generation_tokens", "Number of generation tokens processed.", s.GenTokens},
	} {
		fmt.Fprintf(&b, "# HELP %s_total %s\n# TYPE %s_total counter\n", c.name, c.help, c.name)
		if s.Drafter {
			fmt.Fprintf(&b, "%s_total{%s} %s\n", c.name, draft, pyFloat(c.v/3))
		}
		fmt.Fprintf(&b, "%s_total{%s} %s\n", c.name, main, pyFloat(c.v))
	}
	return []byte(b.String())
}
