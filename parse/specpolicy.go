package parse

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/sample"
)

// Lines in which an engine says it changed its speculation (docs/formats.md, "Speculation off
// by policy"): events with the draft steps it runs now, 0 being no drafts.

// adaptiveSteps reads SGLang's adaptive speculation, "Adaptive spec params updated: steps 3 ->
// 0 (ema_accept_len=0.41)" (python/sglang/srt/speculative/adaptive_spec_params.py).
func adaptiveSteps(b []byte, s *Record) sample.Result {
	i := len("Adaptive spec params updated:")
	if _, ok := lex.CountAfter(b, &i, " steps ", " -> "); !ok {
		return malformed(s, "adaptive spec: no steps A -> B")
	}
	to, n := lex.Number(b[i:])
	if n == 0 {
		return malformed(s, "adaptive spec: no target steps")
	}
	s.Kind, s.Event = sample.KindEvent, sample.EventSpecPolicy
	s.Set(sample.SpecSteps, to)
	if j := bytes.Index(b[i+n:], []byte("ema_accept_len=")); j >= 0 {
		if v, m := lex.Number(b[i+n+j+len("ema_accept_len="):]); m > 0 {
			s.Set(sample.AcceptedDrafts, v)
		}
	}
	return sample.Matched
}

// specGate reads TensorRT-LLM's SpeculationGate turning speculation off for good, "Speculative
// decoding disabled: rolling acceptance avg 0.312 < threshold 0.5 over last 32 requests"
// (tensorrt_llm/_torch/speculative/speculation_gate.py). The average is of accepted drafts
// per iteration (the tokens decoded per iteration less one).
func specGate(b []byte, s *Record) sample.Result {
	i := len("Speculative decoding disabled:")
	a, ok := lex.NumberAfter(b, &i, " rolling acceptance avg ", " < threshold ")
	if !ok {
		return malformed(s, "speculation gate: no rolling acceptance avg … < threshold")
	}
	t, m := lex.Number(b[i:])
	if m == 0 {
		return malformed(s, "speculation gate: no threshold value")
	}
	s.Kind, s.Event = sample.KindEvent, sample.EventSpecPolicy
	s.Set(sample.SpecSteps, 0)
	s.Set(sample.AcceptedDrafts, a)
	s.Set(sample.SpecThreshold, t)
	return sample.Matched
}
