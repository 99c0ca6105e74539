package model

import (
	"time"

	"github.com/specwatch/specwatch/model/internal/restart"
	"github.com/specwatch/specwatch/model/schema"
)

// restartDetector is restart_regression: after an engine start-up line, the steps at the
// contexts the series ran before and its commit length, compared with the series before it.
type restartDetector struct {
	cmp restart.Comparison
	// note is a restart judged harmless, which the explanation tells (CodeRestartFine).
	note schema.Evidence
}

// restartQuiet keeps the several start-up lines one restart prints (DFlash's draft runner,
// DDTree's worker) from starting one comparison each.
const restartQuiet = int64(time.Minute)

// restarted records an engine start-up line: the detectors forget the old process's evidence
// in flight, and if the series already ran, what it looked like becomes the reference for
// what follows.
func (se *Series) restarted(t int64) {
	se.clearDetectors()
	d := &se.det.restart
	if c := &d.cmp; c.Pending() && t-c.Before().At < restartQuiet || se.points == 0 && se.commitQ.Count() == 0 {
		return
	}
	b := restart.Before{At: t}
	if se.fit.N() >= se.warmup() {
		b.A, b.B = se.fit.Coef()
		b.Lo, b.Hi, b.HasStep = se.lo, se.hi, true
	}
	if se.long.N() >= se.opts.Window {
		b.Accept, b.HasAccpt = se.long.Mean(), true
	}
	d.cmp = restart.Start(b, restart.Options{})
}

// restartStep feeds a comparison under way the decode point p.
func (se *Series) restartStep(p *point) {
	if se.det.restart.cmp.Pending() {
		o := se.at(obsPoint, p.t)
		o.p = *p
		se.feed(RestartRegression, o)
	}
}

// observe takes a commit length or a decode point while a comparison is under way, and reports
// the comparison once it has its samples.
func (d *restartDetector) observe(se *Series, o *obs) {
	if !d.cmp.Pending() {
		return
	}
	if o.what == obsCommit {
		d.cmp.AddAccept(o.commit)
	} else {
		d.cmp.AddStep(o.p.ctx, o.p.step)
	}
	r, ok := d.cmp.Result()
	if !ok {
		return
	}
	b := d.cmp.Before()
	if r.Regressed {
		se.raise(RestartRegression, o.t, r.Evidence(schema.CodeRestartRegressed, b))
		d.note = schema.Evidence{}
		return
	}
	d.note = r.Evidence(schema.CodeRestartFine, b)
}

// clear keeps the comparison: a restart's before and after are what it compares, pause or not.
func (d *restartDetector) clear()                 {}
func (d *restartDetector) reconfigure(o *Options) {} // restart.Options are its own constants
