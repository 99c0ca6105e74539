package parse

import (
	"testing"

	"github.com/specwatch/specwatch/sample"
)

// TensorRT-LLM's iteration lines as its f-strings print them (py_executor.py: 9521caf for
// elapsed_time, 0004396 for kv_cache_util and the adp_dummy fields), behind its logger's prefix
// (tensorrt_llm/logger.py and Python logging's '[%(asctime)s] ' with '%m/%d/%Y-%H:%M:%S').
const (
	trtPrefix  = "[11/20/2026-09:00:01] [TRT-LLM] [RANK 0] [I] "
	trtCurrent = "iter = 1204, global_rank = 0, rank = 0, num_scheduled_requests = 4, kv_cache_util = 0.031, currank_total_requests = 9/9, host_step_time = 25.06399154663086ms, prev_device_step_time = 24.87398338317871ms, timestamp = 2026-11-20 09:00:01, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}"
	// profiling.py (070b854): fields after states.
	trtNewest  = "iter = 1204, global_rank = 0, rank = 0, num_scheduled_requests = 5, adp_dummy_ctx_tokens = 0, adp_dummy_gen_tokens = 0, kv_cache_util = 0.031, currank_total_requests = 9/9, host_step_time = 25.06399154663086ms, prev_device_step_time = 24.873899459838867ms, timestamp = 2026-11-20 09:00:01, states = {'num_ctx_requests': 1, 'num_ctx_tokens': 812, 'num_generation_tokens': 16}, num_active = 7, num_fetched = 1, num_dummy = 0, num_unscheduled = 2"
	trtADP     = "iter = 1204, global_rank = 3, rank = 3, num_scheduled_requests = 4, adp_dummy_ctx_tokens = 0, adp_dummy_gen_tokens = 0, kv_cache_util = 0.031, currank_total_requests = 2/9, host_step_time = 25.06399154663086ms, prev_device_step_time = 24.87398338317871ms, timestamp = 2026-11-20 09:00:01, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}"
	trtHost    = "iter = 1204, global_rank = 0, rank = 0, currank_total_requests = 9/9, host_step_time = 25.06399154663086ms, prev_device_step_time = N/A, timestamp = 2026-11-20 09:00:01, num_scheduled_requests: 4, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 4}"
	trtElapsed = "iter = 1204, global_rank = 0, rank = 0, currank_total_requests = 9/9, elapsed_time = 0.02506399154663086s, timestamp = 2026-11-20 09:00:01, num_scheduled_requests: 4, states = {'num_ctx_requests': 1, 'num_ctx_tokens': 812, 'num_generation_tokens': 3}"
)

func trtWant(kind sample.Kind, rank string, f map[sample.Field]float64) want {
	return want{r: sample.Matched, kind: kind, engine: sample.EngineTRTLLM, rank: rank, f: f}
}

// decode is an iteration of generation requests only: 4 requests with 3 drafts each.
var trtDecode = map[sample.Field]float64{sample.Running: 4, sample.StepSeconds: 0.02506399154663086,
	sample.KVUsage: 0.031, sample.Drafted: 12, sample.SpecSteps: 3}

func TestTRTLLMIteration(t *testing.T) {
	f := func(line string, w want) { t.Helper(); check(t, line, w) }
	f(trtPrefix+trtCurrent, trtWant(sample.KindDecode, "", trtDecode))
	f(trtCurrent, trtWant(sample.KindDecode, "", trtDecode)) // the message alone
	f("[TRT-LLM] [I] "+trtCurrent, trtWant(sample.KindDecode, "", trtDecode))
	f("Nov 20 09:00:01 gpu07 trtllm-serve[48211]: "+trtPrefix+trtCurrent,
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineTRTLLM, host: "gpu07", unit: "trtllm-serve", f: trtDecode})
	// Another rank (TLLM_PROFILE_LOG_RANKS=all, attention DP): its global rank, from the body.
	f("[11/20/2026-09:00:01] [TRT-LLM] [RANK 3] [I] "+trtADP, trtWant(sample.KindDecode, "3", trtDecode))
	f("[11/20/2026-09:00:01] [TRT-LLM] [MPI_Rank 3] [I] "+trtADP, trtWant(sample.KindDecode, "3", trtDecode))
	f(trtADP, trtWant(sample.KindDecode, "3", trtDecode))
	// The host_step_time generation without kv_cache_util, no drafts, first iteration's N/A.
	f(trtPrefix+trtHost, trtWant(sample.KindDecode, "", map[sample.Field]float64{sample.Running: 4,
		sample.StepSeconds: 0.02506399154663086, sample.Drafted: 0, sample.SpecSteps: 0}))
	// The elapsed_time generation, in an iteration that ran a context request beside 3
	// generation requests: a prefill sample, its step not a decode step's.
	f(trtPrefix+trtElapsed, trtWant(sample.KindPrefill, "", map[sample.Field]float64{sample.Running: 3,
		sample.StepSeconds: 0.02506399154663086, sample.NewSeqs: 1, sample.NewTokens: 812, sample.Drafted: 0, sample.SpecSteps: 0}))
	// An idle attention-DP rank runs a dummy request: no request ran.
	f("iter = 7, global_rank = 1, rank = 1, num_scheduled_requests = 1, adp_dummy_ctx_tokens = 0, adp_dummy_gen_tokens = 4, kv_cache_util = 0.000, currank_total_requests = 0/9, host_step_time = 9.5ms, prev_device_step_time = 9.1ms, timestamp = 2026-11-20 09:00:01, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 4}",
		trtWant(sample.KindDecode, "1", map[sample.Field]float64{sample.Running: 0, sample.StepSeconds: 0.0095, sample.KVUsage: 0}))
	// No KV cache manager: kv_cache_util N/A, absent. An empty batch is Running 0.
	f("iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 0, kv_cache_util = N/A, currank_total_requests = 0/0, host_step_time = 1456.7ms, prev_device_step_time = 0.5ms, timestamp = 2026-11-20 09:00:01, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 0}",
		trtWant(sample.KindDecode, "", map[sample.Field]float64{sample.Running: 0, sample.StepSeconds: 1.4567}))
	// The newest generation: a context request beside 4 generation requests, fields after states.
	f(trtPrefix+trtNewest, trtWant(sample.KindPrefill, "", map[sample.Field]float64{sample.Running: 4, sample.StepSeconds: 0.02506399154663086,
		sample.KVUsage: 0.031, sample.NewSeqs: 1, sample.NewTokens: 812, sample.Drafted: 12, sample.SpecSteps: 3}))
	// Its dummy requests are not requests: an idle rank's, and one beside real work.
	f("iter = 7, global_rank = 2, rank = 2, num_scheduled_requests = 1, adp_dummy_ctx_tokens = 0, adp_dummy_gen_tokens = 4, kv_cache_util = 0.000, currank_total_requests = 0/9, host_step_time = 9.5ms, prev_device_step_time = 9.1ms, timestamp = 2026-11-20 09:00:01, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 4}, num_active = 0, num_fetched = 0, num_dummy = 1, num_unscheduled = 0",
		trtWant(sample.KindDecode, "2", map[sample.Field]float64{sample.Running: 0, sample.StepSeconds: 0.0095, sample.KVUsage: 0}))
	f("iter = 7, global_rank = 2, rank = 2, num_scheduled_requests = 3, host_step_time = 9.5ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 12}, num_dummy = 1",
		trtWant(sample.KindDecode, "2", map[sample.Field]float64{sample.Running: 2, sample.StepSeconds: 0.0095, sample.Drafted: 10, sample.SpecSteps: 5}))
	// Keys a later version adds, in the line or in states, are read past.
	f("iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 2, kv_cache_util = 0.500, spec_mode = mtp, host_step_time = 12.0ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 2, 'num_paused_requests': 0}",
		trtWant(sample.KindDecode, "", map[sample.Field]float64{sample.Running: 2, sample.StepSeconds: 0.012, sample.KVUsage: 0.5, sample.Drafted: 0, sample.SpecSteps: 0}))
}

// The line's timestamp field is its time when the logger's prefix was lost, and the prefix's
// otherwise (both are local time to the second).
func TestTRTLLMStamp(t *testing.T) {
	p := NewParser(Options{})
	var s Record
	if r := p.Parse([]byte(trtCurrent), &s); r != sample.Matched || s.Stamp.Prec != PrecLocal || s.Stamp.Sec != 1 {
		t.Fatalf("body stamp: %v %+v", r, s.Stamp)
	}
	if r := p.Parse([]byte("[11/20/2026-09:00:07] [TRT-LLM] [I] "+trtCurrent), &s); r != sample.Matched ||
		s.Stamp.Prec != PrecLocal || s.Stamp.Sec != 7 || s.Stamp.Year != 2026 || s.Stamp.Month != 11 || s.Stamp.Day != 20 {
		t.Fatalf("prefix stamp: %v %+v", r, s.Stamp)
	}
}

// The logger's prefix gives the SpeculationGate line its time and rank too, rank 0 none.
func TestTRTLLMGatePrefix(t *testing.T) {
	gate := "[SpeculationGate] Speculative decoding disabled: rolling acceptance avg 0.312 < threshold 0.5 over last 32 requests"
	f := map[sample.Field]float64{sample.SpecSteps: 0, sample.AcceptedDrafts: 0.312, sample.SpecThreshold: 0.5}
	w := want{r: sample.Matched, kind: sample.KindEvent, engine: sample.EngineTRTLLM, event: sample.EventSpecPolicy, f: f}
	check(t, "[11/20/2026-09:00:01] [TRT-LLM] [RANK 0] [I] "+gate, w)
	w.rank = "2"
	check(t, "[11/20/2026-09:00:01] [TRT-LLM] [RANK 2] [I] "+gate, w)
	check(t, "[11/20/2026-09:00:01] [TRT-LLM] [I] [RANK 2] "+gate, w)
}

// Damage to a line with the marker is malformed, never a figure; text that only resembles the
// marker is not the line.
func TestTRTLLMDamaged(t *testing.T) {
	for _, line := range []string{
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, kv_cache_util = 0.031, host_step_time = 25.1ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16", // cut
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, kv_cache_util = 0.031, host_step_time = 25.1ms, prev_device_step_time = 24.9ms, tim",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, kv_cache_util = 0.031, host_step_time = 25.1ms, states = {'num_ctx_requests': 0, 'num_generation_tokens': 16}",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, kv_cache_util = 1.031, host_step_time = 25.1ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, host_step_time = 25.1, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, host_step_time = 2.5e-05ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, host_step_time = nanms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, prev_device_step_time = 24.9ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, host_step_time = 25.1ms, elapsed_time = 0.0251s, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, num_scheduled_requests: 4, host_step_time = 25.1ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, host_step_time = 25.1ms, states = {'num_ctx_requests': 5, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, host_step_time = 25.1ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 3}",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = x, host_step_time = 25.1ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}",
		"iter = 7, global_rank = 0, rank = 0, host_step_time = 25.1ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, host_step_time = 25.1ms, timestamp = 2026-11-20 09:0, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, currank_total_requests = 9, host_step_time = 25.1ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, host_step_time = 25.1ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}, iter = 8, global_rank = 0", // glued
		"[TRT-LLM] [I] iter = 7, global_rank = 0, rank 0, num_scheduled_requests = 4",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, host_step_time = 25.1ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}x",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, host_step_time = 25.1ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}, num_dummy = 5",
		"iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, host_step_time = 25.1ms, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}, num_dummy = x",
	} {
		check(t, line, want{r: sample.Malformed})
	}
	for _, line := range []string{
		"[TRT-LLM] [I] iter = 7, rank = 0, num_scheduled_requests = 4", // no marker
		"[TRT-LLM] [I] Profiling started at iteration 10.",
		"rank = 0, global_rank = 0, rank = 0",
	} {
		check(t, line, want{r: sample.Ignored})
	}
}

// TestTRTLLMNoAllocs: the iteration line, every generation, costs no allocation.
func TestTRTLLMNoAllocs(t *testing.T) {
	if raceEnabled() {
		t.Skip("the race detector allocates")
	}
	p := NewParser(Options{})
	var s Record
	for _, line := range []string{trtPrefix + trtCurrent, trtPrefix + trtNewest, trtPrefix + trtADP, trtPrefix + trtHost, trtPrefix + trtElapsed,
		trtPrefix + "iter = 7, global_rank = 0, rank = 0, num_scheduled_requests = 4, host_step_time = nanms, states = {}"} {
		b := []byte(line)
		if a := testing.AllocsPerRun(100, func() { p.Parse(b, &s) }); a != 0 {
			t.Errorf("%q: %.1f allocations per line", line, a)
		}
	}
}
