package model

import "github.com/specwatch/specwatch/model/internal/idle"

// isIdle reports whether p is an after-idle artefact (model/internal/idle), kept for the
// record but out of fits and alarms. wallAveraged says its step was derived from a wall-time
// average rather than logged.
func (se *Series) isIdle(p *point, wallAveraged bool) bool {
	n, _ := se.DecodeInterval()
	after, untrusted := se.idle.Check(idle.Line{T: p.t, Ctx: p.ctx, Commit: p.commit, Running: p.running, Step: p.step, HasCtx: p.hasCtx},
		wallAveraged, idle.Env{Interval: n, KV: se.kvContext, Factor: se.opts.IdleFactor, Cadence: &se.learn.cadence, Fit: &se.fit, FitWarmup: fitWarmup})
	if untrusted {
		se.learn.skipped.Untrusted++
	}
	return after
}
