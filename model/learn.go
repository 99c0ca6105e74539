package model

import (
	"math"

	"github.com/specwatch/specwatch/model/internal/interval"
	"github.com/specwatch/specwatch/model/internal/nofit"
	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/sample"
)

// learned is what a series infers about its engine's settings instead of assuming them, and
// the account of decode lines that did not reach the fit, so that a series without a step
// model can say why.
type learned struct {
	cadence interval.Learner
	// derived is the latest point whose step is derived from a wall-averaged throughput
	// (SGLang's decode line): a stats line right after it that logs the step describes the same
	// decode; used says one did.
	derived          point
	hasDerived, used bool
	skipped          nofit.Account // decode lines kept out of the fit, by reason
}

// Point sources: which lines drive the fit. A logged step is GPU time of the interval and is
// preferred to one derived from throughput, which is averaged over wall time and so inflated
// after every pause. Of several stats lines after one decode line (DDTree's step_ms line and
// DFlash's profile line), only the first counts, or one decode would count twice.
const (
	ptNone uint8 = iota
	ptDerived
	ptLogged
)

// sameDecode bounds how long after a decode line a stats line may come and still describe the
// same decode: engines print them back to back.
const sameDecode = 1e9 // ns

// decodePoint finishes a decode point (s's step, logged or derived) and applies it if its kind
// of line drives the fit.
func (se *Series) decodePoint(p *point, s *sample.Sample, hasStep, hasTPS bool, step, tps float64) {
	kind := ptDerived
	if hasStep {
		kind = ptLogged
	}
	switch {
	case hasStep:
		p.step = step
	case hasTPS && tps > 0 && p.hasCommit:
		p.tps = tps
		p.step = p.commit * p.running / tps
	default:
		return
	}
	l := &se.learn
	if kind == ptDerived {
		// The after-idle test reads the rhythm of log lines; a scrape's gauges come on the
		// scrape's clock, which says nothing of it (every point would be untrusted, all idle).
		p.idle = s.Source != sample.SourceMetrics && se.isIdle(p, true)
		l.derived, l.hasDerived, l.used = *p, true, false
	} else if !se.loggedPoint(p, s, hasTPS, tps) {
		return
	}
	switch {
	case se.pointSrc == ptNone, se.pointSrc == ptDerived && kind != ptDerived:
		se.pointSrc = kind
	case kind != se.pointSrc:
		return
	}
	l.skipped.Count(p.idle, p.hasCtx, p.step, p.shared)
	se.apply(p)
}

// loggedPoint completes a point whose step the line logs. When it follows a decode line of the
// same decode, that line supplies what the stats line does not print (context, batch, commit
// length, measured throughput); its after-idle verdict concerns only the throughput, which is
// then replaced by the rate while decoding. It reports false for a second stats line of a
// decode that already has its point.
func (se *Series) loggedPoint(p *point, s *sample.Sample, hasTPS bool, tps float64) bool {
	l, d := &se.learn, &se.learn.derived
	same := l.hasDerived && p.t >= d.t && p.t-d.t <= sameDecode
	if same {
		if l.used {
			return false
		}
		l.used = true
		if !s.Has(sample.Context) && d.hasCtx {
			p.ctx, p.hasCtx = d.ctx, true
		}
		if !s.Has(sample.Running) {
			p.running = d.running
		}
		if !p.hasCommit && d.hasCommit {
			p.commit, p.hasCommit = d.commit, true
		}
	}
	switch {
	case hasTPS:
		p.tps = tps
	case same && !d.idle && d.tps > 0:
		p.tps = d.tps
	case p.hasCommit:
		p.tps = p.commit * p.running / p.step
	default:
		p.tps = math.NaN()
	}
	if !same {
		p.idle = se.isIdle(p, false)
	}
	return true
}

// DecodeInterval is the number of decode steps a line covers, and whether it was learned from
// the lines (once they agree on one) rather than configured.
func (se *Series) DecodeInterval() (int, bool) {
	n, ok := se.learn.cadence.Interval()
	if !ok {
		return se.opts.DecodeLogInterval, false
	}
	return n, true
}

// noFit says why a series has no step model yet, with the numbers.
func (se *Series) noFit() *schema.NoFit {
	n, _ := se.DecodeInterval()
	a := &se.learn.skipped
	return &schema.NoFit{N: se.fit.N(), Warmup: se.warmup(), Interval: n, Lines: se.points,
		AfterIdle: a.AfterIdle, NoContext: a.NoContext, BadStep: a.BadStep, Shared: a.Shared, Untrusted: a.Untrusted}
}
