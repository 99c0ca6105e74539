package model

import (
	"time"

	"github.com/specwatch/specwatch/model/internal/hysteresis"
	"github.com/specwatch/specwatch/model/schema"
)

// collapseDetector is throughput_collapse: measured tok/s below CollapseRatio of what the model
// predicts at this context, commit length and batch for CollapseSamples points (idle artefacts
// are excluded before this point); it clears once tok/s is back above CollapseClearRatio.
type collapseDetector struct{ streak hysteresis.Streak }

// collapseCheck feeds throughput_collapse the point p, predTPS what the fit predicts of it.
func (se *Series) collapseCheck(p *point, predTPS float64) {
	o := se.at(obsPoint, p.t)
	o.p, o.predTPS = *p, predTPS
	se.feed(ThroughputCollapse, o)
}

func (d *collapseDetector) observe(se *Series, o *obs) {
	opts, p := se.opts, &o.p
	ratio := p.tps / o.predTPS
	switch {
	case ratio < opts.CollapseRatio:
		d.streak.Observe(true)
	case ratio > opts.CollapseClearRatio:
		d.streak.Observe(false)
	default:
		d.streak.Good = 0 // in between: neither evidence of collapse nor of recovery
	}
	switch {
	case d.streak.Bad >= opts.CollapseSamples:
		se.raise(ThroughputCollapse, p.t, schema.Ev(schema.CodeCollapse, p.tps, 100*ratio, o.predTPS, p.ctx, p.commit, float64(d.streak.Bad)))
	case d.streak.Good >= opts.CollapseSamples:
		se.clear(ThroughputCollapse, p.t)
	}
}

func (d *collapseDetector) clear()                 { d.streak = hysteresis.Streak{} }
func (d *collapseDetector) reconfigure(o *Options) {} // its ratios and count are read at each point

// collapseAge is how long the active throughput_collapse episode has lasted (0 if none).
func (se *Series) collapseAge(t int64) time.Duration {
	if i := se.active[ThroughputCollapse]; i >= 0 {
		return time.Duration(t - se.anomalies[i].Start)
	}
	return 0
}
