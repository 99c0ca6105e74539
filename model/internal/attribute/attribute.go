// Package attribute is the arithmetic of model.Attribute: the exact log decomposition of a
// throughput change between two windows (docs/report.md, "Attribution"), on plain values so
// that the model's exported types stay where their users find them.
package attribute

import "math"

// Window is one window's means; fields not observed are ≤ 0 and derived where possible.
type Window struct {
	TPS     float64 // measured generation tokens/s of the whole batch
	Commit  float64 // mean commit length (tokens per request per step)
	Context float64 // mean context tokens (the step model's x)
	Step    float64 // mean step seconds
	Running float64 // mean running requests
}

// Result is the decomposition:
//
//	Total    = ln(T2/T1)                      measured total tok/s
//	Batch    = ln(r2/r1)                      running requests
//	LogRatio = Total − Batch                  per-request tok/s, c/s
//	         = Acceptance + Context + Residual
//	Acceptance = ln(c2/c1)
//	Context    = −ln(ŝ(ctx2)/ŝ(ctx1))
//	Residual   = −ln[(s2/ŝ(ctx2)) / (s1/ŝ(ctx1))]
//
// with s = c·r/T the step the throughput implies. The batch term stands apart because none of
// the three factors is the number of running requests: folded into the residual it would call
// a quieter hour "slower than the model explains". The batch's larger context is in Context.
// Where a window has both TPS and Step, TPS wins and their disagreement lands in Residual
// (SGLang's throughput diluted by idle wall time).
type Result struct {
	Total, Batch, LogRatio        float64
	Acceptance, Context, Residual float64
	Base, Cur                     Window // missing fields derived
}

// Decompose explains the change from w1 to w2, m1 and m2 the step model's prediction at each
// window's context. ok is false when a window lacks a positive commit length, or both TPS and
// Step, or a prediction is not positive and finite. Running is used only when both windows
// know it; otherwise both are taken as 1.
func Decompose(w1, w2 Window, m1, m2 float64) (Result, bool) {
	if !(w1.Running > 0) || !(w2.Running > 0) || math.IsInf(w1.Running, 0) || math.IsInf(w2.Running, 0) {
		w1.Running, w2.Running = 1, 1
	}
	var ok1, ok2 bool
	w1, ok1 = w1.derive()
	w2, ok2 = w2.derive()
	if !ok1 || !ok2 || !(m1 > 0) || !(m2 > 0) || math.IsInf(m1, 0) || math.IsInf(m2, 0) {
		return Result{}, false
	}
	at := Result{Base: w1, Cur: w2}
	at.Total = math.Log(w2.TPS / w1.TPS)
	at.Batch = math.Log(w2.Running / w1.Running)
	at.LogRatio = at.Total - at.Batch
	at.Acceptance = math.Log(w2.Commit / w1.Commit)
	at.Context = -math.Log(m2 / m1)
	// The residual is computed as a remainder so the identity is exact in
	// floating point; it equals −ln[(s2/m2)/(s1/m1)] for s = c·r/T.
	at.Residual = at.LogRatio - at.Acceptance - at.Context
	return at, true
}

// derive fills a missing Step or TPS from T = c·r/s; a measured Step is
// kept as given even when TPS is present. Running is valid here.
func (w Window) derive() (Window, bool) {
	if !(w.Commit > 0) || math.IsInf(w.Commit, 0) {
		return w, false
	}
	tpsOK := w.TPS > 0 && !math.IsInf(w.TPS, 0)
	stepOK := w.Step > 0 && !math.IsInf(w.Step, 0)
	switch {
	case tpsOK && !stepOK:
		w.Step = w.Commit * w.Running / w.TPS
	case stepOK && !tpsOK:
		w.TPS = w.Commit * w.Running / w.Step
	case !tpsOK:
		return w, false
	}
	return w, true
}
