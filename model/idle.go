package model

import (
	"math"

	"github.com/specwatch/specwatch/model/internal/rhythm"
)

// idleDetector recognises SGLang's after-idle artefact: the throughput figure is tokens since
// the previous line over wall time since then, so the first line after a pause implies a step
// as long as the pause divided by the log interval. Such a line is kept for the record but out
// of fits and alarms.
//
// The test is the gap between lines, not the implied step: a busy engine logs at a steady
// rhythm (every 40 steps, and steps change slowly with context), so a line whose gap is several
// times the recent rhythm followed a pause. The implied step cannot tell by itself, because it
// is the gap divided by 40 either way, and a fit learned from polluted points would vouch for
// them. vLLM logs on a fixed 10 s clock instead; there the first busy interval after an idle
// line ("Running: 0 reqs") is the artefact.
type idleDetector struct {
	lastT     int64
	lastCtx   float64
	lastRun   float64
	gaps      rhythm.Gaps // recent gaps between regular lines, seconds
	seenIdle  bool        // an interval with nothing running was logged since the last point
	longPrev  bool        // the previous line came after a long gap
	hasPoints bool
}

func (d *idleDetector) sawIdle() { d.seenIdle = true }

// check classifies p. wallAveraged says the step was derived from a wall-time average (SGLang
// gen throughput, vLLM interval throughput) rather than logged directly.
func (d *idleDetector) check(p *point, se *Series, wallAveraged bool) bool {
	gap := float64(p.t-d.lastT) / 1e9
	first, afterIdle := !d.hasPoints, d.seenIdle
	// The same requests kept decoding if the context grew by what the interval generated: then
	// nothing was idle, however long the gap (a collapse stretches gaps too).
	// The test is tight (within half of the expected growth) because a new request whose
	// prompt happens to be near the old context must not pass for the same one.
	grown := p.ctx - d.lastCtx
	n, _ := se.DecodeInterval()
	expect := float64(n) * p.commit * p.running
	pair := p.hasCtx && !first && p.running == d.lastRun
	continued := pair && math.Abs(grown-expect) <= expect/2
	// A settled interval learns nothing from a line that continues at it (and skipping those
	// saves 56 of a sample's 2,340 instructions); any other pair may be evidence of a new one.
	if c := &se.learn.cadence; pair && !se.kvContext && !(continued && c.Settled()) {
		c.Observe(grown, p.commit, p.running)
	}
	d.hasPoints, d.lastT, d.seenIdle, d.lastCtx, d.lastRun = true, p.t, false, p.ctx, p.running
	if !wallAveraged {
		return false
	}
	if first || afterIdle {
		return true
	}
	if se.kvContext {
		return false // vLLM logs on a clock: only the interval after an idle one is diluted
	}
	f := se.opts.IdleFactor
	typical := d.gaps.Median()
	long := d.gaps.N() > 0 && gap > f*typical
	longPrev := d.longPrev
	d.longPrev = long
	var idle bool
	switch {
	case long:
		// A long gap is a pause, unless the slow rhythm persists over a second line of the same
		// requests: then the engine itself slowed down (a collapse), and that must be seen.
		idle = !(continued && longPrev)
	case continued:
		idle = false
	case d.gaps.N() == 0:
		// No rhythm known yet and not a continuation: while the fit has nothing to check
		// against, only lines that provably continue the previous one are trusted.
		idle = true
		se.learn.skipped.Untrusted++
	case gap > 1.5*typical && se.fit.N() >= fitWarmup && p.hasCtx:
		// A shorter pause still inflates the step: the warm fit says by how much.
		idle = p.step > 2*se.fit.Predict(p.ctx)
	}
	if !idle {
		d.gaps.Add(gap)
	}
	return idle
}
