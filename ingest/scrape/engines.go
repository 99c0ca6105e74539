package scrape

import (
	"strconv"
	"strings"

	"github.com/specwatch/specwatch/parse"
)

// slot is one quantity read from an engine's exposition.
type slot uint8

const (
	slotDrafts      slot = iota // counter: verify steps that carried a draft
	slotAccepted                // counter: accepted draft tokens
	slotDraftTokens             // counter: drafted (proposed) tokens
	slotGenTokens               // counter: generated tokens
	slotCommit                  // gauge: the engine's own commit (acceptance) length
	slotAcceptRate              // gauge: accepted / drafted as the engine states it
	slotRunning                 // gauge: running requests
	slotQueue                   // gauge: waiting requests
	slotKVUsage                 // gauge: fraction of the KV cache in use (vLLM)
	slotTokenUsage              // gauge: fraction of the token pool in use (SGLang)
	slotGenTPS                  // gauge: generation throughput, tokens/s (SGLang)
	slotPerPos                  // counter with a position label: accepted tokens per draft position
	numSlots
)

// isCounter reports whether a slot is a cumulative counter (deltas) rather than a gauge.
func (s slot) isCounter() bool {
	return s <= slotGenTokens || s == slotPerPos
}

// metric is one row of the name table.
type metric struct {
	engine parse.Engine
	slot   slot
}

// metrics maps a family name, with any "_total" suffix removed (the text format writes it on
// the family, OpenMetrics only on the sample), to what it means. The names, types and labels
// were read in the engines' code, the files named above each block.
var metrics = map[string]metric{
	// vLLM v1: vllm/v1/spec_decode/metrics.py (SpecDecodingProm), vllm/v1/metrics/loggers.py;
	// labels model_name, engine (the engine index), position on the per-position counter.
	"vllm:spec_decode_num_drafts":                  {parse.EngineVLLM, slotDrafts},
	"vllm:spec_decode_num_draft_tokens":            {parse.EngineVLLM, slotDraftTokens},
	"vllm:spec_decode_num_accepted_tokens":         {parse.EngineVLLM, slotAccepted},
	"vllm:spec_decode_num_accepted_tokens_per_pos": {parse.EngineVLLM, slotPerPos},
	"vllm:generation_tokens":                       {parse.EngineVLLM, slotGenTokens},
	"vllm:num_requests_running":                    {parse.EngineVLLM, slotRunning},
	"vllm:num_requests_waiting":                    {parse.EngineVLLM, slotQueue},
	"vllm:kv_cache_usage_perc":                     {parse.EngineVLLM, slotKVUsage},
	"vllm:gpu_cache_usage_perc":                    {parse.EngineVLLM, slotKVUsage},

	// llama.cpp server (--metrics): the Prometheus block of llama-server (tools/server, written
	// with add_items("counter", …): "llamacpp:" + a name that already ends in _total, C++ stream
	// formatting); no labels but position on the per-position counter. Read in a copy of that
	// code that could not be tied to a ggml-org/llama.cpp commit: the _total suffix is optional
	// here, so both spellings match.
	"llamacpp:spec_decode_num_drafts":                  {parse.EngineLlamaCpp, slotDrafts},
	"llamacpp:spec_decode_num_draft_tokens":            {parse.EngineLlamaCpp, slotDraftTokens},
	"llamacpp:spec_decode_num_accepted_tokens":         {parse.EngineLlamaCpp, slotAccepted},
	"llamacpp:spec_decode_num_accepted_tokens_per_pos": {parse.EngineLlamaCpp, slotPerPos},
	"llamacpp:tokens_predicted":                        {parse.EngineLlamaCpp, slotGenTokens},
	"llamacpp:requests_processing":                     {parse.EngineLlamaCpp, slotRunning},
	"llamacpp:requests_deferred":                       {parse.EngineLlamaCpp, slotQueue},

	// SGLang (--enable-metrics): python/sglang/srt/metrics/collector.py, gauges in
	// multiprocess mode "mostrecent"; labels model_name, tp_rank, pp_rank, dp_rank, engine_type.
	"sglang:spec_accept_length": {parse.EngineSGLang, slotCommit},
	"sglang:spec_accept_rate":   {parse.EngineSGLang, slotAcceptRate},
	"sglang:num_running_reqs":   {parse.EngineSGLang, slotRunning},
	"sglang:num_queue_reqs":     {parse.EngineSGLang, slotQueue},
	"sglang:token_usage":        {parse.EngineSGLang, slotTokenUsage},
	"sglang:gen_throughput":     {parse.EngineSGLang, slotGenTPS},

	// TensorRT-LLM: tensorrt_llm/metrics/collector.py (MetricsCollector, prefix "trtllm_");
	// labels model_name, engine_type. It has no drafts counter: commit length is its gauge.
	"trtllm_spec_decode_num_draft_tokens":    {parse.EngineTRTLLM, slotDraftTokens},
	"trtllm_spec_decode_num_accepted_tokens": {parse.EngineTRTLLM, slotAccepted},
	"trtllm_spec_decode_acceptance_length":   {parse.EngineTRTLLM, slotCommit},
	"trtllm_generation_tokens":               {parse.EngineTRTLLM, slotGenTokens},
	"trtllm_num_requests_running":            {parse.EngineTRTLLM, slotRunning},
	"trtllm_num_requests_waiting":            {parse.EngineTRTLLM, slotQueue},
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
// both logs and /metrics keys the same series: vLLM "Engine 000", SGLang "DP3 TP3" / "TP0",
// nothing for single-process servers. get returns a label's value ("" if absent).
func rankOf(e parse.Engine, get func(string) string) string {
	switch e {
	case parse.EngineVLLM:
		if v := get("engine"); v != "" {
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				return "Engine " + pad3(n)
			}
			return "Engine " + v
		}
	case parse.EngineSGLang:
		var parts []string
		if v := get("dp_rank"); v != "" {
			parts = append(parts, "DP"+v)
		}
		if v := get("tp_rank"); v != "" {
			parts = append(parts, "TP"+v)
		}
		return strings.Join(parts, " ")
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
