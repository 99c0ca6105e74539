package model

import "github.com/specwatch/specwatch/model/internal/idle"

// isIdle reports whether p is an after-idle artefact (model/internal/idle), kept for the
// record but out of fits and alarms. wallAveraged says its step was derived from a wall-time
// average rather than logged.
func (se *Series) isIdle(p *point, wallAveraged bool) bool {
	e := &se.idleEnv
	if e.Cadence == nil {
		*e = idle.Env{KV: se.kvContext, Cadence: &se.learn.cadence, Fit: &se.fit, FitWarmup: fitWarmup}
	}
	e.Interval, _ = se.DecodeInterval()
	e.Factor = se.opts.IdleFactor
	after, untrusted := se.idle.Check(p.t, p.ctx, p.commit, p.running, p.step, p.hasCtx, wallAveraged, e)
	if untrusted {
		se.learn.skipped.Untrusted++
	}
	return after
}
