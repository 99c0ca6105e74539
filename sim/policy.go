package sim

import "time"

// SpecPolicy is speculation an engine switches off on purpose: its steps then draft nothing
// and commit one token per request, which is not a stuck drafter (docs/formats.md).
type SpecPolicy struct {
	// OffAbove: no drafts while more than OffAbove requests run, as vLLM's
	// num_speculative_tokens_per_batch_size with K = 0 above it. Zero: never.
	OffAbove int
	// OffFrom..OnFrom (offsets from the start): no drafts at any batch, as SGLang's
	// --speculative-adaptive with its steps at 0, or TensorRT-LLM's acceptance_rate_threshold
	// (for good: OnFrom zero). SGLang logs each switch. Zero OffFrom: never.
	OffFrom, OnFrom time.Duration
}

// offAt reports whether the time policy has speculation off at off from the start.
func (p *SpecPolicy) offAt(off time.Duration) bool {
	return p.OffFrom > 0 && off >= p.OffFrom && (p.OnFrom == 0 || off < p.OnFrom)
}

// specOff reports whether the rank's engine drafts nothing now.
func (r *rankSim) specOff() bool {
	p := &r.svc.Policy
	return p.OffAbove > 0 && len(r.running) > p.OffAbove || p.offAt(r.offset(r.now))
}

// adaptiveLine writes SGLang's switch of its adaptive steps when the time policy switched
// since the previous line, just before the line at t.
func (r *rankSim) adaptiveLine(t int64) {
	p := &r.svc.Policy
	if r.svc.Engine != SGLang || p.OffFrom == 0 {
		return
	}
	now := p.offAt(r.offset(r.now))
	if now == r.adaptiveOff {
		return
	}
	r.adaptiveOff = now
	// SGLang steps down to 0 once its EMA of accepted drafts is at most 0.5 (less its
	// hysteresis), and keeps that EMA while it drafts nothing.
	rec := r.emit(LineAdaptive, t-int64(time.Millisecond), nil)
	rec.StepsFrom, rec.Steps, rec.Depth = 0, r.svc.Acceptance.DraftLen, 0.4
	if now {
		rec.StepsFrom, rec.Steps = r.svc.Acceptance.DraftLen, 0
	}
}

// gateLine writes TensorRT-LLM's SpeculationGate turning speculation off for good once the time
// policy has it off, just before the iteration at t (the default window and threshold).
func (r *rankSim) gateLine(t int64) {
	if r.adaptiveOff || !r.svc.Policy.offAt(r.offset(r.now)) {
		return
	}
	r.adaptiveOff = true
	rec := r.emit(LineGate, t-int64(time.Millisecond), nil)
	rec.Depth, rec.Commit, rec.Slot = 0.4, 0.5, 32
}
