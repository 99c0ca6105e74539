// Package idle recognises SGLang's after-idle artefact: the throughput figure is tokens since
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
package idle

import (
	"math"

	"github.com/specwatch/specwatch/model/internal/interval"
	"github.com/specwatch/specwatch/model/internal/rhythm"
)

// Fit is the series' step model, consulted only for a shorter pause once N reaches the
// warm-up. It is read during Check and not kept.
type Fit interface {
	N() int
	Predict(ctx float64) float64
}

// Env is what the test needs of the series. The series keeps one and refreshes Interval and
// Factor before each Check (they change as the interval is learned and on a reload); Check
// reads it and keeps nothing of it.
type Env struct {
	Interval  int  // decode steps per line, learned or configured
	KV        bool // contexts are KV cache percentages: vLLM, which logs on a clock
	Factor    float64
	Cadence   *interval.Learner // fed the pairs of lines that may show the interval
	Fit       Fit
	FitWarmup int
}

// Detector is the test's state. The zero value is ready; it allocates nothing.
type Detector struct {
	lastT     int64
	lastCtx   float64
	lastRun   float64
	gaps      rhythm.Gaps // recent gaps between regular lines, seconds
	seenIdle  bool        // an interval with nothing running was logged since the last point
	longPrev  bool        // the previous line came after a long gap
	hasPoints bool
}

// SawIdle records a logged interval with nothing running.
func (d *Detector) SawIdle() { d.seenIdle = true }

// Check classifies the line at t. wallAveraged says the step was derived from a wall-time
// average (SGLang gen throughput, vLLM interval throughput) rather than logged directly.
// untrusted says the line was called after-idle only because no logging rhythm is known yet.
// The line's figures are arguments, not a struct, so that they travel in registers: the test
// runs for every decode point.
func (d *Detector) Check(t int64, ctx, commit, running, step float64, hasCtx, wallAveraged bool, e *Env) (idle, untrusted bool) {
	gap := float64(t-d.lastT) / 1e9
	first, afterIdle := !d.hasPoints, d.seenIdle
	// The same requests kept decoding if the context grew by what the interval generated: then
	// nothing was idle, however long the gap (a collapse stretches gaps too).
	// The test is tight (within half of the expected growth) because a new request whose
	// prompt happens to be near the old context must not pass for the same one.
	grown := ctx - d.lastCtx
	expect := float64(e.Interval) * commit * running
	pair := hasCtx && !first && running == d.lastRun
	continued := pair && math.Abs(grown-expect) <= expect/2
	// A settled interval learns nothing from a line that continues at it (and skipping those
	// saves 56 of a sample's 2,340 instructions); any other pair may be evidence of a new one.
	if c := e.Cadence; pair && !e.KV && !(continued && c.Settled()) {
		c.Observe(grown, commit, running)
	}
	d.hasPoints, d.lastT, d.seenIdle, d.lastCtx, d.lastRun = true, t, false, ctx, running
	if !wallAveraged {
		return false, false
	}
	if first || afterIdle {
		return true, false
	}
	if e.KV {
		return false, false // vLLM logs on a clock: only the interval after an idle one is diluted
	}
	typical := d.gaps.Median()
	long := d.gaps.N() > 0 && gap > e.Factor*typical
	longPrev := d.longPrev
	d.longPrev = long
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
		idle, untrusted = true, true
	case gap > 1.5*typical && e.Fit.N() >= e.FitWarmup && hasCtx:
		// A shorter pause still inflates the step: the warm fit says by how much.
		idle = step > 2*e.Fit.Predict(ctx)
	}
	if !idle {
		d.gaps.Add(gap)
	}
	return idle, untrusted
}
