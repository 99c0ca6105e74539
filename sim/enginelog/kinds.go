package enginelog

import "fmt"

// Engine names the software that writes a series' lines; the values are the metrics' engine
// label (docs/metrics.md).
type Engine string

// Engines the generator can imitate.
const (
	SGLang   Engine = "sglang"
	VLLM     Engine = "vllm"
	LlamaCpp Engine = "llamacpp"
	// Generic is a custom build (a DDTree fork, say) that logs only key=value statistics.
	Generic Engine = "generic"
	// TRTLLM is TensorRT-LLM's PyTorch executor with print_iter_log: a line per iteration.
	TRTLLM Engine = "trtllm"
)

// Style is a generation of an engine's line shapes. The shapes drift between releases and
// specwatch must read all of them, so each service picks one.
type Style int

// Styles. StyleDefault is each engine's current generation.
const (
	StyleDefault Style = iota
	// SGLangOld: "Decode batch. #running-req: …, accept len: …, cuda graph: True, …" (no accept rate).
	SGLangOld
	// SGLangCurrent: "Decode batch, …, accept len: …, accept rate: …, …".
	SGLangCurrent
	// SGLangIteration: "Decode batch [1234], …" with the decode step counter.
	SGLangIteration
	// SGLangHybridSWA: "#full token: …, full token usage: …, #swa token: …, swa token usage: …".
	SGLangHybridSWA
	// SGLangDisagg: disaggregated decode, with pre-allocation fields and a trailing ", ".
	SGLangDisagg
	// VLLMSpecGen1: "SpecDecoding metrics: Draft acceptance rate: …, Accepted: …, Drafted: …".
	VLLMSpecGen1
	// VLLMSpecGen2 adds Mean acceptance length and the per-position list.
	VLLMSpecGen2
	// VLLMSpecGen3: mean length first, accepted/drafted throughput, "Avg Draft acceptance rate".
	VLLMSpecGen3
	// VLLMV0: the v0 engine line (Swapped, Pending, CPU KV cache) and cumulative
	// "Speculative metrics", under the old "metrics.py:345] " prefix.
	VLLMV0
	// GenericComma: "avg_commit_len=2.90, avg_accepted_depth=1.90, step_ms=101.3".
	GenericComma
	// GenericSpace: "ddtree step=… bs=… ctx=… avg_commit_len=… avg_accepted_drafts=… step_time=…".
	GenericSpace
	// TRTLLMCurrent: "iter = …, num_scheduled_requests = …, adp_dummy_ctx_tokens = …, …,
	// kv_cache_util = …, …, host_step_time = …ms, prev_device_step_time = …, timestamp = …,
	// states = {…}, num_active = …, num_fetched = …, num_dummy = …, num_unscheduled = …".
	TRTLLMCurrent
	// TRTLLMHost: without kv_cache_util, "num_scheduled_requests: …" after the timestamp.
	TRTLLMHost
	// TRTLLMElapsed: the first generation, "elapsed_time = …s" for the step time.
	TRTLLMElapsed
	numStyles
)

var styleNames = [numStyles]string{"default", "sglang-old", "sglang-current", "sglang-iteration",
	"sglang-hybrid-swa", "sglang-disagg", "vllm-spec-gen1", "vllm-spec-gen2", "vllm-spec-gen3",
	"vllm-v0", "generic-comma", "generic-space", "trtllm-current", "trtllm-host", "trtllm-elapsed"}

func (s Style) String() string {
	if s < 0 || s >= numStyles {
		return fmt.Sprintf("Style(%d)", int(s))
	}
	return styleNames[s]
}

// Engine is the engine a style belongs to; "" for StyleDefault.
func (s Style) Engine() Engine {
	switch {
	case s == StyleDefault:
		return ""
	case s <= SGLangDisagg:
		return SGLang
	case s <= VLLMV0:
		return VLLM
	case s <= GenericSpace:
		return Generic
	default:
		return TRTLLM
	}
}

// Resolve replaces StyleDefault by the engine's current style.
func (s Style) Resolve(e Engine) Style {
	if s != StyleDefault {
		return s
	}
	switch e {
	case SGLang:
		return SGLangCurrent
	case VLLM:
		return VLLMSpecGen3
	case Generic:
		return GenericComma
	case TRTLLM:
		return TRTLLMCurrent
	}
	return StyleDefault
}

// Prefix is the engine logger's layout in front of the message.
type Prefix int

// Prefix layouts.
const (
	// PrefixEngine is the engine's usual layout: SGLang "[2026-11-20 09:00:01 TP0] ", vLLM
	// "(APIServer pid=9120) INFO 11-20 09:00:01 [loggers.py:271] ", llama.cpp's time since the
	// process started and level, "0.05.071.041 I ", Python's default layout for generic builds.
	PrefixEngine Prefix = iota
	// PrefixMillis: SGLang with milliseconds, "[2026-11-20 09:00:01.123 TP0] ".
	PrefixMillis
	// PrefixTimeOnly: old SGLang builds, "[13:02:11 TP0] ".
	PrefixTimeOnly
	// PrefixPython: "2026-06-07 11:20:05,102 [INFO] sglang.srt.managers.scheduler: ", which names
	// no rank, so a service using it may have one rank only.
	PrefixPython
	// PrefixBare: vLLM without the process tag; the bare message for the others (one rank only).
	PrefixBare
)

// LineKind is the shape of an engine line, finer than the metrics' sample kinds so that tests can
// pick exactly the lines they check.
type LineKind uint8

// Engine line kinds.
const (
	LineDecode     LineKind = iota + 1 // SGLang "Decode batch"
	LinePrefill                        // SGLang "Prefill batch"
	LineRetract                        // SGLang "KV cache pool is full. Retract requests."
	LineStartup                        // SGLang DFLASH / DDTree initialisation, llama.cpp "listening on"
	LineProfile                        // "[DFLASH profile] … total_ms=…"
	LineCustom                         // "avg_commit_len=…" key=value statistics
	LineStats                          // vLLM engine line ("Avg generation throughput")
	LineSpec                           // vLLM "SpecDecoding metrics" / v0 "Speculative metrics"
	LineTiming                         // llama.cpp print_timing: prompt eval, eval, total time, graphs (Sub 0–4)
	LineDraft                          // llama.cpp "draft acceptance = … mean len = …"
	LineSlot                           // llama.cpp slot launched (Sub 0), released (1), all idle (2)
	LinePositions                      // llama.cpp "acc per pos = (…)" (-lv 4)
	LineStatistics                     // llama.cpp common_speculative "statistics" totals (-lv 4)
	LineAdaptive                       // SGLang "Adaptive spec params updated: steps A -> B"
	LineIteration                      // TensorRT-LLM "iter = …" (print_iter_log)
	LineGate                           // TensorRT-LLM "[SpeculationGate] Speculative decoding disabled: …"
	numLineKinds
)

var lineNames = [numLineKinds]string{"", "decode", "prefill", "retract", "startup", "profile",
	"custom", "stats", "spec", "timing", "draft", "slot", "positions", "statistics", "adaptive",
	"iteration", "gate"}

func (k LineKind) String() string {
	if k == 0 || k >= numLineKinds {
		return fmt.Sprintf("LineKind(%d)", int(k))
	}
	return lineNames[k]
}
