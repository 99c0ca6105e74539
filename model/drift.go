package model

import (
	"math"
	"time"

	"github.com/specwatch/specwatch/model/internal/drift"
	"github.com/specwatch/specwatch/model/schema"
)

// The tests themselves are in model/internal/drift; here their decisions become anomalies,
// with the sentences that explain them (acceptance_drop's in accdrift.go, beside its slow test).

// windowTime sizes acceptance_drop's windows at about a minute (of at least minWindow
// samples); earlyWindows of them spanning armAfter arm it, so that it judges within ten
// minutes of the engine's first line at any cadence (the window that crosses nine minutes
// ends before ten).
const (
	windowTime   = time.Minute
	minWindow    = 5
	earlyWindows = 8
	armAfter     = 9 * time.Minute
)

func newDropDetector(o *Options) drift.Drop {
	return drift.NewDrop(drift.Options{Window: o.Window, HalfLife: o.LongHalfLife, Warmup: o.WarmupWindows,
		K: o.DropK, H: o.DropH, MinEffect: o.DropMinEffect,
		WindowTime: windowTime, MinWindow: minWindow, ArmAfter: armAfter, EarlyWindows: earlyWindows})
}

// regressionRelearn is how long step_time_regression stays in alarm before the slower steps
// become the reference.
const regressionRelearn = time.Hour

func newRegressionDetector(o *Options) drift.Regression {
	return drift.NewRegression(drift.Options{Window: o.Window, HalfLife: o.LongHalfLife, Warmup: o.WarmupWindows,
		K: o.RegressionK, H: o.RegressionH, MinEffect: o.RegressionMinEffect}, regressionRelearn)
}

func newDriftDetector(o *Options) drift.Format { return drift.NewFormat(o.DriftLines, o.DriftFraction) }

// rangeMargin lets step_time_regression reach a little past the contexts the snapshot learned.
const rangeMargin = 1.1

// observeRegression feeds step_time_regression the log residual ln(step / ŝ), ŝ the snapshot
// fit (Series.snap), refreshed after every window in which no slowdown is suspected. Points
// outside the context range the snapshot learned are not tested: its prediction there is an
// extrapolation, and a long prompt after a morning of short ones is not a regression.
func (se *Series) observeRegression(p *point) {
	if se.snap.N() < se.warmup() {
		se.snapshot()
		return
	}
	if p.ctx < se.snapLo/rangeMargin || p.ctx > se.snapHi*rangeMargin {
		return
	}
	pred := se.snap.Predict(p.ctx)
	if pred <= 0 {
		return
	}
	st := se.regress.Add(p.t, math.Log(p.step/pred))
	switch st.Event {
	case drift.Raise:
		d := &se.regress
		se.raise(StepTimeRegression, p.t, schema.Ev(schema.CodeRegression, 100*(math.Exp(d.Mean-d.Base)-1), p.ctx, pred*1000,
			se.fitA()*1000, se.fitBPer()*1000, float64(d.Run)))
	case drift.Clear:
		se.clear(StepTimeRegression, p.t)
	}
	if st.Learn {
		se.snapshot()
	}
}

// snapshot makes the live fit the reference for step_time_regression.
func (se *Series) snapshot() {
	se.snap, se.snapLo, se.snapHi = se.fit, se.lo, se.hi
}

// observeFormat feeds format_drift one line with an engine marker.
func (se *Series) observeFormat(malformed bool, t int64) {
	switch se.drift.Add(malformed) {
	case drift.Raise:
		bad, n := se.drift.Counts()
		se.raise(FormatDrift, t, schema.Ev(schema.CodeFormatDrift, float64(bad), float64(n)))
	case drift.Clear:
		se.clear(FormatDrift, t)
	}
}
