package model

import (
	"math"

	"github.com/specwatch/specwatch/model/internal/attribute"
)

// AttributionWindow summarises one window (baseline or current) of a series.
// Fields that were not observed are ≤ 0 and derived where possible.
type AttributionWindow struct {
	TPS     float64 // measured generation tokens/s of the whole batch
	Commit  float64 // mean commit length (tokens per request per step)
	Context float64 // mean context tokens (the step model's x)
	Step    float64 // mean step seconds
	Running float64 // mean running requests (see Attribute)
}

// Attribution is the exact log decomposition of a throughput change between
// two windows (docs/report.md, "Attribution"):
//
//	Total    = ln(T2/T1)                      measured total tok/s
//	Batch    = ln(r2/r1)                      running requests
//	LogRatio = Total − Batch                  per-request tok/s, c/s
//	         = Acceptance + Context + Residual
//	Acceptance = ln(c2/c1)
//	Context    = −ln(ŝ(ctx2)/ŝ(ctx1))
//	Residual   = −ln[(s2/ŝ(ctx2)) / (s1/ŝ(ctx1))]
//
// with s = c·r/T the step the throughput implies. Negative terms are losses.
//
// Why a separate batch term: T = c·r/s, and the report explains a change by
// three factors, acceptance | context | residual, none of which is the
// number of running requests. Folding ln(r2/r1) into the residual would
// call a quieter hour "slower than the model explains" and flip the verdict
// to degraded; folding it into acceptance or context would be false too.
// So the three factors decompose the per-request throughput c/s, which is
// what the step model and the drafter determine, and the batch-size ratio
// is reported next to them (0 when running is unchanged or unknown). The
// identity Total = Batch + Acceptance + Context + Residual holds exactly.
// The batch's larger context when more requests run is not lost: it is in
// ctx, hence in the Context term.
//
// When a window has both a measured TPS and a Step, TPS wins (it is the
// quantity being explained) and any disagreement between the two lands in
// the Residual, e.g. SGLang's throughput diluted by idle wall time.
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
		Residual: r.Residual, Baseline: AttributionWindow(r.Base), Current: AttributionWindow(r.Cur), BaselineModel: m1, CurrentModel: m2}, true
}
