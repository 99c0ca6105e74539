package model

import (
	"math"
	"time"

	"github.com/specwatch/specwatch/model/internal/drift"
	"github.com/specwatch/specwatch/model/internal/estimate"
	"github.com/specwatch/specwatch/model/schema"
)

// regressionDetector is step_time_regression: the log residual ln(step / ŝ) of each decode
// point, ŝ the reference fit (snap), tested by a sequential test of window means. The
// reference is the live fit as it was when no slowdown was suspected, and the context range
// it had learned: the live fit keeps learning (new context ranges, new workloads) without a
// slowdown becoming the reference.
type regressionDetector struct {
	test   drift.Regression
	snap   estimate.RLS
	lo, hi float64
}

// regressionRelearn is how long step_time_regression stays in alarm before the slower steps
// become the reference.
const regressionRelearn = time.Hour

// rangeMargin lets step_time_regression reach a little past the contexts the reference learned.
const rangeMargin = 1.1

func newRegressionDetector(o *Options) regressionDetector {
	return regressionDetector{test: drift.NewRegression(regressionOptions(o), regressionRelearn)}
}

func regressionOptions(o *Options) drift.Options {
	return drift.Options{Window: o.Window, HalfLife: o.LongHalfLife, Warmup: o.WarmupWindows,
		K: o.RegressionK, H: o.RegressionH, MinEffect: o.RegressionMinEffect}
}

// observeRegression feeds step_time_regression the decode point p.
func (se *Series) observeRegression(p *point) {
	o := se.at(obsPoint, p.t)
	o.p = *p
	se.feed(StepTimeRegression, o)
}

// observe tests the point against the reference, which is refreshed after every window in
// which no slowdown is suspected. Points outside the context range the reference learned are
// not tested: its prediction there is an extrapolation, and a long prompt after a morning of
// short ones is not a regression.
func (d *regressionDetector) observe(se *Series, o *obs) {
	p := &o.p
	if d.snap.N() < se.warmup() {
		d.learn(se)
		return
	}
	if p.ctx < d.lo/rangeMargin || p.ctx > d.hi*rangeMargin {
		return
	}
	pred := d.snap.Predict(p.ctx)
	if pred <= 0 {
		return
	}
	st := d.test.Add(p.t, math.Log(p.step/pred))
	switch st.Event {
	case drift.Raise:
		w := &d.test
		se.raise(StepTimeRegression, p.t, schema.Ev(schema.CodeRegression, 100*(math.Exp(w.Mean-w.Base)-1), p.ctx, pred*1000,
			se.fitA()*1000, se.fitBPer()*1000, float64(w.Run)))
	case drift.Clear:
		se.clear(StepTimeRegression, p.t)
	}
	if st.Learn {
		d.learn(se)
	}
}

// learn makes the live fit the reference.
func (d *regressionDetector) learn(se *Series) { d.snap, d.lo, d.hi = se.fit, se.lo, se.hi }

func (d *regressionDetector) clear()                 { d.test.Discard() }
func (d *regressionDetector) reconfigure(o *Options) { d.test.Retune(regressionOptions(o)) }
