package parse

import (
	"testing"

	"github.com/specwatch/specwatch/sample"
)

// TestSpecPolicyLines: the engines' word on speculation they switched off or down, written
// from their format strings (SGLang's adaptive_spec_params.py, TensorRT-LLM's
// speculation_gate.py and logger.py), are events with the draft steps now in use.
func TestSpecPolicyLines(t *testing.T) {
	policy := func(e sample.Engine, rank string, f map[sample.Field]float64) want {
		return want{r: sample.Matched, kind: sample.KindEvent, engine: e, event: sample.EventSpecPolicy, rank: rank, f: f}
	}
	check(t, "[2026-11-20 09:00:01 TP0] Adaptive spec params updated: steps 3 -> 0 (ema_accept_len=0.41)",
		policy(sample.EngineSGLang, "TP0", map[sample.Field]float64{sample.SpecSteps: 0, sample.AcceptedDrafts: 0.41}))
	check(t, "[2026-11-20 09:00:01 TP0] Adaptive spec params updated: steps 0 -> 1 (ema_accept_len=-1.00)",
		policy(sample.EngineSGLang, "TP0", map[sample.Field]float64{sample.SpecSteps: 1}))
	check(t, "[11/20/2026-09:00:01] [TRT-LLM] [I] [SpeculationGate] Speculative decoding disabled: rolling acceptance avg 0.312 < threshold 0.5 over last 32 requests",
		policy(sample.EngineTRTLLM, "", map[sample.Field]float64{sample.SpecSteps: 0, sample.AcceptedDrafts: 0.312, sample.SpecThreshold: 0.5}))
	for _, line := range []string{
		"[2026-11-20 09:00:01 TP0] Adaptive spec params updated: steps x -> 0 (ema_accept_len=0.41)",
		"[2026-11-20 09:00:01 TP0] Adaptive spec params updated: steps 3 -> (ema_accept_len=0.41)",
		"[TRT-LLM] [I] [SpeculationGate] Speculative decoding disabled: rolling acceptance avg x < threshold 0.5 over last 32 requests",
		"[TRT-LLM] [I] [SpeculationGate] Speculative decoding disabled: rolling acceptance avg 0.3 <",
	} {
		check(t, line, want{r: sample.Malformed})
	}
	// The gate's other lines are not a switch.
	check(t, "[TRT-LLM] [I] [SpeculationGate] Speculative decoding remains enabled: rolling acceptance avg 0.912 >= threshold 0.5",
		want{r: sample.Ignored})
}
