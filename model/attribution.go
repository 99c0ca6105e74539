package model

import (
	"math"

	"github.com/specwatch/specwatch/model/internal/attribute"
)

// AttributionWindow summarises one window (baseline or current) of a series: its measured
// tok/s, commit length, context, step and running requests (attribute.Window).
type AttributionWindow = attribute.Window

// Attribution is the exact log decomposition of a throughput change between two windows,
// Total = Batch + Acceptance + Context + Residual (the derivation is model/internal/attribute's,
// the reading docs/report.md's "Attribution"). Negative terms are losses.
type Attribution struct {
	Total, Batch, LogRatio        float64
	Acceptance, Context, Residual float64
	Baseline, Current             AttributionWindow // missing fields derived
	BaselineModel, CurrentModel   float64           // ŝ(ctx1), ŝ(ctx2)
}

// Shares returns each factor as a fraction of LogRatio (summing to 1).
// Factors of opposite sign give shares outside [0, 1]. All are 0 when
// |LogRatio| < 1e-9, where shares are meaningless.
func (a Attribution) Shares() (acceptance, context, residual float64) {
	if math.Abs(a.LogRatio) < 1e-9 {
		return 0, 0, 0
	}
	return a.Acceptance / a.LogRatio, a.Context / a.LogRatio, a.Residual / a.LogRatio
}

// Attribute decomposes the change from base to cur with the linear step
// model ŝ(ctx) = a + b·ctx (a in seconds, b in seconds per token). ok is
// false when a window lacks a positive commit length, or both TPS and
// Step, or the model predicts a non-positive step at either context.
//
// Running must be known in both windows to be used: if either is ≤ 0,
// both are taken as 1, Batch is 0, and a change of batch size, if the
// TPS figures are batch totals, shows in the Residual.
func Attribute(base, cur AttributionWindow, a, b float64) (Attribution, bool) {
	return attributeAt(base, cur, a+b*base.Context, a+b*cur.Context)
}

// AttributeFunc is Attribute with an arbitrary step model.
func AttributeFunc(base, cur AttributionWindow, step func(ctx float64) float64) (Attribution, bool) {
	return attributeAt(base, cur, step(base.Context), step(cur.Context))
}

// attributeAt is the decomposition (model/internal/attribute) with predictions m1 and m2.
func attributeAt(w1, w2 AttributionWindow, m1, m2 float64) (Attribution, bool) {
	r, ok := attribute.Decompose(attribute.Window(w1), attribute.Window(w2), m1, m2)
	if !ok {
		return Attribution{}, false
	}
	return Attribution{Total: r.Total, Batch: r.Batch, LogRatio: r.LogRatio, Acceptance: r.Acceptance, Context: r.Context,
		Residual: r.Residual, Baseline: r.Base, Current: r.Cur, BaselineModel: m1, CurrentModel: m2}, true
}
