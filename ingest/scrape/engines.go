package scrape

import (
	"strconv"
	"strings"

	"github.com/specwatch/specwatch/sample"
)

// slot is one quantity read from an engine's exposition.
type slot uint8

const (
	slotDrafts       slot = iota // counter: verify steps that carried a draft
	slotAccepted                 // counter: accepted draft tokens
	slotDraftTokens              // counter: drafted (proposed) tokens
	slotGenTokens                // counter: generated tokens
	slotCommit                   // gauge: the engine's own commit (acceptance) length
	slotAcceptRate               // gauge: accepted / drafted as the engine states it
	slotRunning                  // gauge: running requests
	slotQueue                    // gauge: waiting requests
	slotKVUsage                  // gauge: fraction of the KV cache in use (vLLM)
	slotTokenUsage               // gauge: fraction of the token pool in use (SGLang)
	slotGenTPS                   // gauge: generation throughput, tokens/s (SGLang)
	slotPerPos                   // counter with a position label: accepted tokens per draft position
	slotEmitted                  // counter: emitted tokens, accepted + one per verify step (vLLM v0)
	slotEfficiency               // gauge: emitted / the most a step could emit (vLLM v0)
	slotVerifyCalls              // counter: verify steps, added when a request finishes (SGLang)
	slotReqGenTokens             // counter: generated tokens, added when a request finishes (SGLang)
	slotGenSeconds               // counter: seconds spent generating, added when a request finishes (llama.cpp)
	slotSpecSteps                // gauge: draft steps in use now, 0 when adaptive speculation is off (SGLang)
	slotDraftPerPos              // counter with a position label: drafted tokens per draft position (vLLM, TensorRT-LLM)
	slotContext                  // gauge: tokens of context across the decode batch (SGLang decode_sum_seq_lens)
	slotVerifyTokens             // gauge: tokens verified per step, root included (SGLang speculative_num_draft_tokens)
	slotIterLatency              // gauge: the last iteration's latency, seconds (TensorRT-LLM)
	slotSpecTokens               // info: the configured draft length, from a label (TensorRT-LLM max_draft_len)
	numSlots
)

// isCounter reports whether a slot is a cumulative counter (deltas) rather than a gauge.
func (s slot) isCounter() bool {
	switch s {
	case slotDrafts, slotAccepted, slotDraftTokens, slotGenTokens, slotPerPos, slotEmitted, slotVerifyCalls, slotReqGenTokens,
		slotGenSeconds, slotDraftPerPos:
		return true
	}
	return false
}

// metric is one row of the name table.
type metric struct {
	engine sample.Engine
	slot   slot
}

// metrics maps a family name, with any "_total" suffix removed (the text format writes it on
// the family, OpenMetrics only on the sample), to what it means. The names, types and labels
// were read in the engines' code, the files named above each block.
var metrics = map[string]metric{
	// vLLM v1: vllm/v1/spec_decode/metrics.py (SpecDecodingProm), vllm/v1/metrics/loggers.py;
	// labels model_name, engine (the engine index), position on the per-position counter.
	"vllm:spec_decode_num_drafts":                  {sample.EngineVLLM, slotDrafts},
	"vllm:spec_decode_num_draft_tokens":            {sample.EngineVLLM, slotDraftTokens},
	"vllm:spec_decode_num_accepted_tokens":         {sample.EngineVLLM, slotAccepted},
	"vllm:spec_decode_num_accepted_tokens_per_pos": {sample.EngineVLLM, slotPerPos},
	// Newer builds: the draft tokens proposed at each position, the per-position denominator
	// when the draft length varies from step to step (docs/formats.md, "Newest /metrics").
	"vllm:spec_decode_num_draft_tokens_per_pos": {sample.EngineVLLM, slotDraftPerPos},
	"vllm:generation_tokens":                    {sample.EngineVLLM, slotGenTokens},
	"vllm:num_requests_running":                 {sample.EngineVLLM, slotRunning},
	"vllm:num_requests_waiting":                 {sample.EngineVLLM, slotQueue},
	"vllm:kv_cache_usage_perc":                  {sample.EngineVLLM, slotKVUsage},
	"vllm:gpu_cache_usage_perc":                 {sample.EngineVLLM, slotKVUsage},

	// vLLM v0: vllm/engine/metrics.py (Metrics), label model_name only, so its one engine is
	// rank "" as its log lines are. The accepted and draft-token counters keep v1's names; the
	// gauges are the spec decode worker's running figures: acceptance rate = accepted / draft
	// tokens, efficiency = emitted / (verify steps × (k + 1)).
	"vllm:spec_decode_num_emitted_tokens":    {sample.EngineVLLM, slotEmitted},
	"vllm:spec_decode_draft_acceptance_rate": {sample.EngineVLLM, slotAcceptRate},
	"vllm:spec_decode_efficiency":            {sample.EngineVLLM, slotEfficiency},

	// llama.cpp server (--metrics): the speculative counters came upstream with ggml-org/llama.cpp
	// pull request 26389 (merged 2026-08), "matching the vLLM counter schema": counters
	// spec_decode_num_drafts, _num_draft_tokens, _num_accepted_tokens and
	// _num_accepted_tokens_per_pos{position}, the last absent until a speculative request has
	// completed and then one per draft position (0 .. draft max − 1). The pull request spells
	// them without _total, Debian's 0.7.0 (build 11669) with it, as the server's other counters;
	// both spellings match here. No labels but position: one llama-server is one rank. Every
	// counter moves only when a request finishes, and _num_drafts counts the verify steps that
	// carried a draft, whatever its help text says (llamacpp.go).
	"llamacpp:spec_decode_num_drafts":                  {sample.EngineLlamaCpp, slotDrafts},
	"llamacpp:spec_decode_num_draft_tokens":            {sample.EngineLlamaCpp, slotDraftTokens},
	"llamacpp:spec_decode_num_accepted_tokens":         {sample.EngineLlamaCpp, slotAccepted},
	"llamacpp:spec_decode_num_accepted_tokens_per_pos": {sample.EngineLlamaCpp, slotPerPos},
	"llamacpp:tokens_predicted":                        {sample.EngineLlamaCpp, slotGenTokens},
	"llamacpp:tokens_predicted_seconds":                {sample.EngineLlamaCpp, slotGenSeconds},

	// SGLang (--enable-metrics): python/sglang/srt/metrics/collector.py, gauges in
	// multiprocess mode "mostrecent"; labels model_name, tp_rank, pp_rank, dp_rank, engine_type.
	"sglang:spec_accept_length": {sample.EngineSGLang, slotCommit},
	"sglang:spec_accept_rate":   {sample.EngineSGLang, slotAcceptRate},
	"sglang:num_running_reqs":   {sample.EngineSGLang, slotRunning},
	"sglang:num_queue_reqs":     {sample.EngineSGLang, slotQueue},
	"sglang:token_usage":        {sample.EngineSGLang, slotTokenUsage},
	"sglang:gen_throughput":     {sample.EngineSGLang, slotGenTPS},
	// The speculative_num_steps in use, which --speculative-adaptive moves (0: no drafts;
	// python/sglang/srt/speculative/adaptive_spec_params.py).
	"sglang:spec_num_steps": {sample.EngineSGLang, slotSpecSteps},
	// python/sglang/srt/observability/metrics_collector.py (016d860), all "mostrecent" gauges
	// set at each decode log interval: the decode batch's summed sequence lengths (the KV
	// tokens the step reads: the step model's context) and the verify width in use.
	"sglang:decode_sum_seq_lens":   {sample.EngineSGLang, slotContext},
	"sglang:spec_num_draft_tokens": {sample.EngineSGLang, slotVerifyTokens},
	// Counters that SGLang adds to only when a request finishes (observe_one_finished_request):
	// the verify steps and the tokens of the finished requests. Their ratio over an interval in
	// which requests finished is the commit length of those requests (counters.go).
	"sglang:spec_verify_calls": {sample.EngineSGLang, slotVerifyCalls},
	"sglang:generation_tokens": {sample.EngineSGLang, slotReqGenTokens},

	// TensorRT-LLM /prometheus/metrics: tensorrt_llm/metrics/collector.py (MetricsCollector,
	// prefix "trtllm_", 050f80d); labels model_name, engine_type, one process: no rank. It has
	// no verify-step counter: commit length comes from the iteration stats (trtllm.go), the
	// gauge (the last iteration's) only without them. The per-position counters (label
	// token_position) move when a request finishes, as llama.cpp's do.
	"trtllm_spec_decode_drafted_tokens":      {sample.EngineTRTLLM, slotDraftPerPos},
	"trtllm_spec_decode_accepted_tokens":     {sample.EngineTRTLLM, slotPerPos},
	"trtllm_iteration_latency_seconds":       {sample.EngineTRTLLM, slotIterLatency},
	"trtllm_speculative_config_info":         {sample.EngineTRTLLM, slotSpecTokens},
	"trtllm_spec_decode_num_draft_tokens":    {sample.EngineTRTLLM, slotDraftTokens},
	"trtllm_spec_decode_num_accepted_tokens": {sample.EngineTRTLLM, slotAccepted},
	"trtllm_spec_decode_acceptance_length":   {sample.EngineTRTLLM, slotCommit},
	"trtllm_generation_tokens":               {sample.EngineTRTLLM, slotGenTokens},
	"trtllm_num_requests_running":            {sample.EngineTRTLLM, slotRunning},
	"trtllm_num_requests_waiting":            {sample.EngineTRTLLM, slotQueue},
}

// lookup finds a family's meaning; _created families (the text format's creation times of
// counters) and unknown names are not metrics here.
func lookup(name string) (metric, bool) {
	if strings.HasSuffix(name, "_created") {
		return metric{}, false
	}
	m, ok := metrics[strings.TrimSuffix(name, "_total")]
	return m, ok
}

// rankOf is the series rank as the engine's own log lines name it, so that a rank seen in
// both logs and /metrics keys the same series: vLLM "Engine 000" (its engine label is the
// engine index its engine line prints as %03d), nothing for single-process servers. SGLang's
// name depends on the whole deployment (sglangRanks): here it is only its labels, joined.
// get returns a label's value ("" if absent).
func rankOf(e sample.Engine, get func(string) string) string {
	switch e {
	case sample.EngineVLLM:
		if v := get("engine"); v != "" {
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				return "Engine " + pad3(n)
			}
			return "Engine " + v
		}
	case sample.EngineSGLang:
		return sglangRaw{get("dp_rank"), get("pp_rank"), get("tp_rank"), get("moe_ep_rank")}.String()
	}
	if v := get("rank"); v != "" {
		return v
	}
	return ""
}

func pad3(n int) string {
	s := strconv.Itoa(n)
	for len(s) < 3 {
		s = "0" + s
	}
	return s
}

// sglangRaw is an SGLang rank's labels, before sglangRanks names it.
type sglangRaw struct{ dp, pp, tp, ep string }

func (r sglangRaw) String() string { return r.dp + "\x00" + r.pp + "\x00" + r.tp + "\x00" + r.ep }

func parseSGLangRaw(s string) sglangRaw {
	f := strings.SplitN(s, "\x00", 4)
	for len(f) < 4 {
		f = append(f, "")
	}
	return sglangRaw{f[0], f[1], f[2], f[3]}
}

// sglangRanks names SGLang's ranks as its scheduler's log prefix does (run_scheduler_process in
// python/sglang/srt/managers/scheduler.py): "DP<dp>" when the rank has a dp_rank, then
// "PP<pp>" when there is more than one pipeline stage, "TP<tp>" more than one tensor-parallel
// rank, "EP<ep>" more than one expert-parallel rank. /metrics labels every rank with tp_rank
// and pp_rank, even alone; the sizes are the target's (Readings.SGLang) where it states them,
// else the distinct values the exposition holds, since one server's /metrics carries all of
// the ranks that export.
func (r *Readings) sglangRanks() {
	var raws []rankKey
	for k := range r.ranks {
		if k.engine == sample.EngineSGLang {
			raws = append(raws, k)
		}
	}
	if len(raws) == 0 {
		return
	}
	pp, tp, ep := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, k := range raws {
		x := parseSGLangRaw(k.rank)
		pp[x.pp], tp[x.tp], ep[x.ep] = true, true, true
	}
	for _, k := range raws {
		x := parseSGLangRaw(k.rank)
		var parts []string
		if x.dp != "" {
			parts = append(parts, "DP"+x.dp)
		}
		if len(pp) > 1 || r.SGLang.PP > 1 {
			parts = append(parts, "PP"+x.pp)
		}
		if len(tp) > 1 || r.SGLang.TP > 1 {
			parts = append(parts, "TP"+x.tp)
		}
		if len(ep) > 1 || r.SGLang.EP > 1 {
			parts = append(parts, "EP"+x.ep)
		}
		named := rankKey{sample.EngineSGLang, strings.Join(parts, " ")}
		rd := r.ranks[k]
		delete(r.ranks, k)
		if _, dup := r.ranks[named]; dup {
			r.Dropped++ // two label sets that the log prefix cannot tell apart
			continue
		}
		r.ranks[named] = rd
	}
}
