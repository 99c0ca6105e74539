package model

import (
	"math"
	"time"

	"github.com/specwatch/specwatch/model/internal/estimate"
)

// dropDetector is acceptance_drop: a one-sided CUSUM on window means of commit length,
// standardised against the series' own baseline (long EWMA of window means and their spread).
// The spread is measured, so on a workload whose acceptance swings with the text (2.5 on hard
// reasoning, 7 on boilerplate) those swings set the scale and are not alarms, while a service
// with steady acceptance has a tight scale and a 10 % fall stands out within minutes.
type dropDetector struct {
	block   estimate.BlockMean
	base    estimate.EWMA // of window means
	cusum   estimate.CUSUM
	windows int   // since the start, or since the last gap that emptied the baseline
	lastT   int64 // end of the previous window
}

// forgetHalfLives is the gap, in baseline half-lives, past which the baseline has forgotten
// what came before (its weight fell below 1/16): the first window after such a gap would be
// the whole baseline, with no spread, and ordinary text-dependent swings alarmed (a 30-day
// pause in a clean log raised acceptance_drop). The test warms up again instead.
const forgetHalfLives = 4

func newDropDetector(o *Options) dropDetector {
	return dropDetector{
		block: estimate.NewBlockMean(o.Window),
		base:  estimate.NewEWMA(o.LongHalfLife),
		cusum: estimate.NewCUSUM(estimate.CUSUMOptions{K: o.DropK, H: o.DropH, Side: estimate.SideDown}),
	}
}

// minRelSpread floors the baseline spread at 1 % of the mean: a series that printed the same
// figure for an hour must not alarm on its first 0.01 wobble.
const minRelSpread = 0.01

// observe returns the window mean when c completed a window, for the tests that share it.
func (d *dropDetector) observe(t int64, c float64, se *Series) (float64, bool) {
	m, full := d.block.Add(c)
	if !full {
		return 0, false
	}
	o := se.opts
	if d.lastT != 0 && t-d.lastT > forgetHalfLives*int64(o.LongHalfLife) {
		d.windows = 0
		d.cusum.Reset()
	}
	d.lastT = t
	d.windows++
	mu, sd := d.base.Mean(), math.Max(d.base.Std(), minRelSpread*d.base.Mean())
	if d.windows > o.WarmupWindows && sd > 0 {
		// Only the shortfall beyond DropMinEffect counts: a 3 % dip for a few minutes is
		// text, not a drafter problem, and window means are precise enough to see it.
		d.cusum.Update((m - mu*(1-o.DropMinEffect)) / sd)
	}
	// The baseline does not learn while a drop is suspected, or the drop would become normal.
	if d.cusum.Stat() <= o.DropH/2 {
		d.base.Update(t, m)
	}
	switch {
	case d.cusum.Alarm():
		se.raise(AcceptanceDrop, t, func() string {
			return sprintf("commit length fell to %.2f (window mean) against a baseline of %.2f ± %.2f, %.0f %% lower, sustained for %d windows of %d samples",
				m, mu, sd, 100*(1-m/mu), d.cusum.RunLength(), o.Window)
		})
	case d.cusum.Stat() == 0 && !se.slow.Alarm():
		se.clear(AcceptanceDrop, t)
	}
	return m, true
}

// regressionDetector is step_time_regression: a one-sided CUSUM on window means of the log
// residual ln(step / ŝ) where ŝ is the snapshot fit (Series.snap), refreshed after every window
// in which no slowdown is suspected. Points outside the context range the snapshot learned are
// not tested: its prediction there is an extrapolation, and a long prompt after a morning of
// short ones is not a regression. After regressionRelearn in alarm the snapshot is refreshed
// anyway: a permanent change (a new driver, another GPU clock) is the new normal, and the
// operator has been told.
type regressionDetector struct {
	block   estimate.BlockMean
	base    estimate.EWMA // of window means of the log residual
	cusum   estimate.CUSUM
	windows int   // since the start, or since the last gap that emptied the baseline
	lastT   int64 // end of the previous window (forgetHalfLives)
	alarmAt int64
}

const regressionRelearn = time.Hour

// rangeMargin lets the test reach a little past the contexts the snapshot learned.
const rangeMargin = 1.1

func newRegressionDetector(o *Options) regressionDetector {
	return regressionDetector{
		block: estimate.NewBlockMean(o.Window),
		base:  estimate.NewEWMA(o.LongHalfLife),
		cusum: estimate.NewCUSUM(estimate.CUSUMOptions{K: o.RegressionK, H: o.RegressionH, Side: estimate.SideUp}),
	}
}

// maxLogResidual clips one point's log residual (±0.4: 49 % slower, 33 % faster).
const maxLogResidual = 0.4

// minResidualSpread floors the spread of a window's mean log residual: 1 %.
const minResidualSpread = 0.01

func (d *regressionDetector) observe(p *point, se *Series) {
	if se.snap.N() < fitWarmup {
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
	// Each point's say is bounded, so one odd line (a pause that looked like continuous
	// decoding) cannot move a window; a real slowdown moves every point of it.
	m, full := d.block.Add(max(-maxLogResidual, min(maxLogResidual, math.Log(p.step/pred))))
	if !full {
		return
	}
	o := se.opts
	if d.lastT != 0 && p.t-d.lastT > forgetHalfLives*int64(o.LongHalfLife) {
		d.windows = 0
		d.cusum.Reset()
	}
	d.lastT = p.t
	d.windows++
	mu, sd := d.base.Mean(), math.Max(d.base.Std(), minResidualSpread)
	if d.windows > o.WarmupWindows {
		// Only the excess over RegressionMinEffect counts: a model 2 % off for an hour is not
		// news, and window means are precise enough to see 2 %.
		d.cusum.Update((m - mu - math.Log1p(o.RegressionMinEffect)) / sd)
	}
	if d.cusum.Stat() <= o.RegressionH/2 {
		d.base.Update(p.t, m)
		se.snapshot()
	}
	switch {
	case d.cusum.Alarm():
		if d.alarmAt == 0 {
			d.alarmAt = p.t
		}
		se.raise(StepTimeRegression, p.t, func() string {
			return sprintf("steps are %.0f %% slower than the model predicts at %s (%.1f ms expected, fit %.1f ms + %.2f ms per %s), sustained for %d windows",
				100*(math.Exp(m-mu)-1), se.contextPhrase(p.ctx), pred*1000, se.fitA()*1000, se.fitBPer()*1000, se.perUnit(), d.cusum.RunLength())
		})
		if time.Duration(p.t-d.alarmAt) > regressionRelearn {
			se.snapshot()
			d.cusum.Reset()
		}
	case d.cusum.Stat() == 0:
		d.alarmAt = 0
		se.clear(StepTimeRegression, p.t)
	}
}

// snapshot makes the live fit the reference for step_time_regression.
func (se *Series) snapshot() {
	se.snap, se.snapLo, se.snapHi = se.fit, se.lo, se.hi
}

// driftDetector is format_drift: the share of malformed lines among the last DriftLines lines
// that carried an engine marker. A version upgrade that renames a field turns every line
// malformed at once; damage in transit stays a trickle.
type driftDetector struct {
	ring   [4]uint64 // bit per line, 1 = malformed; up to 256 lines
	n, bad int
	pos    int
	size   int
}

func newDriftDetector(o *Options) driftDetector {
	return driftDetector{size: min(o.DriftLines, 256)}
}

func (d *driftDetector) observe(malformed bool, t int64, se *Series) {
	w, b := d.pos/64, uint(d.pos%64)
	if d.n == d.size && d.ring[w]&(1<<b) != 0 {
		d.bad--
	}
	if malformed {
		d.ring[w] |= 1 << b
		d.bad++
	} else {
		d.ring[w] &^= 1 << b
	}
	// Every sample passes here: the ring wraps by a comparison and a clean window skips the
	// float division, instead of an integer modulo (a 64-bit idiv, tens of cycles) and a
	// division per sample: 31 → 28 M of analyze's instructions on the chatty corpus
	// (cachegrind; the idiv's latency is not in that count).
	if d.pos++; d.pos >= d.size {
		d.pos = 0
	}
	d.n = min(d.n+1, d.size)
	frac := 0.0
	if d.bad > 0 {
		frac = float64(d.bad) / float64(d.n)
	}
	switch {
	case d.bad >= minDriftLines && frac >= se.opts.DriftFraction:
		bad, n := d.bad, d.n
		se.raise(FormatDrift, t, func() string {
			return sprintf("%d of the last %d lines with an engine marker did not parse: the engine's log format has changed", bad, n)
		})
	case frac < se.opts.DriftFraction/4:
		se.clear(FormatDrift, t)
	}
}

// minDriftLines keeps a handful of damaged lines at start-up from raising format_drift.
const minDriftLines = 10
