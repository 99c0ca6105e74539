package enginelog_test

import (
	"fmt"

	"github.com/specwatch/specwatch/sim/enginelog"
)

// ExampleWriter_AppendLine_trtllm writes TensorRT-LLM's iteration line in its three
// generations, for rank 1 of a two-rank world, and its SpeculationGate line: 4 generation
// requests with 3 drafts each beside 1 context request of 812 tokens.
func ExampleWriter_AppendLine_trtllm() {
	rec := enginelog.Record{Kind: enginelog.LineIteration, Iter: 1204, Running: 4, NewSeq: 1, NewTok: 812,
		Drafted: 12, Ctx: 15500, Step: 0.02506399154663086, Device: 0.0248739, Fetched: 9}
	for _, s := range []enginelog.Style{enginelog.TRTLLMCurrent, enginelog.TRTLLMHost, enginelog.TRTLLMElapsed} {
		w := enginelog.Writer{Engine: enginelog.TRTLLM, Style: s, Rank: "1", World: 2, KVTokens: 500000}
		fmt.Println(string(w.AppendLine(nil, at, &rec)))
	}
	w := enginelog.Writer{Engine: enginelog.TRTLLM, Prefix: enginelog.PrefixBare}
	gate := enginelog.Record{Kind: enginelog.LineGate, Depth: 0.3124, Commit: 0.5, Slot: 32}
	fmt.Println(string(w.AppendLine(nil, at, &gate)))
	rec.Device, rec.Step = 0, 0.012 // the first iteration; a whole number of milliseconds
	fmt.Println(string(w.AppendLine(nil, at, &rec)))
	// Output:
	// [11/20/2026-09:00:01] [TRT-LLM] [RANK 1] [I] iter = 1204, global_rank = 1, rank = 1, num_scheduled_requests = 5, adp_dummy_ctx_tokens = 0, adp_dummy_gen_tokens = 0, kv_cache_util = 0.031, currank_total_requests = 9/9, host_step_time = 25.06399154663086ms, prev_device_step_time = 24.873899459838867ms, timestamp = 2026-11-20 09:00:01, states = {'num_ctx_requests': 1, 'num_ctx_tokens': 812, 'num_generation_tokens': 16}, num_active = 5, num_fetched = 1, num_dummy = 0, num_unscheduled = 0
	// [11/20/2026-09:00:01] [TRT-LLM] [RANK 1] [I] iter = 1204, global_rank = 1, rank = 1, currank_total_requests = 9/9, host_step_time = 25.06399154663086ms, prev_device_step_time = 24.873899459838867ms, timestamp = 2026-11-20 09:00:01, num_scheduled_requests: 5, states = {'num_ctx_requests': 1, 'num_ctx_tokens': 812, 'num_generation_tokens': 16}
	// [11/20/2026-09:00:01] [TRT-LLM] [RANK 1] [I] iter = 1204, global_rank = 1, rank = 1, currank_total_requests = 9/9, elapsed_time = 0.02506399154663086s, timestamp = 2026-11-20 09:00:01, num_scheduled_requests: 5, states = {'num_ctx_requests': 1, 'num_ctx_tokens': 812, 'num_generation_tokens': 16}
	// [TRT-LLM] [I] [SpeculationGate] Speculative decoding disabled: rolling acceptance avg 0.312 < threshold 0.5 over last 32 requests
	// [TRT-LLM] [I] iter = 1204, global_rank = 0, rank = 0, currank_total_requests = 9/9, host_step_time = 12.0ms, prev_device_step_time = N/A, timestamp = 2026-11-20 09:00:01, num_scheduled_requests: 5, states = {'num_ctx_requests': 1, 'num_ctx_tokens': 812, 'num_generation_tokens': 16}
}
