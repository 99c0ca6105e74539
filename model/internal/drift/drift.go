// Package drift holds the state machines of the tests for a change that persists: a fall of
// commit length (acceptance_drop), a rise of step time (step_time_regression), both one-sided
// CUSUMs on window means against a learning baseline, and a change of log format
// (format_drift). They take values and times and return decisions; the model raises and
// clears the anomalies and writes their sentences, so that what a test decides can be read,
// and tested, apart from what the report says of it.
package drift

import (
	"time"

	"github.com/specwatch/specwatch/model/internal/estimate"
)

// Event is what an observation changed.
type Event uint8

const (
	None  Event = iota
	Raise       // the test is in alarm (every window it stays there)
	Clear       // the test no longer suspects a change
)

// Options shape a sequential test.
type Options struct {
	Window   int           // values per window mean
	HalfLife time.Duration // of the baseline of window means
	Warmup   int           // windows in the baseline before the test is armed
	// K and H are the CUSUM allowance and threshold, in spreads of a window mean.
	K, H float64
	// MinEffect is the smallest relative change reported: only the excess over it counts.
	MinEffect float64
}

// ForgetHalfLives is the gap, in baseline half-lives, past which the baseline has forgotten
// what came before (its weight fell below 1/16): the first window after such a gap would be
// the whole baseline, with no spread, and ordinary text-dependent swings alarmed (a 30-day
// pause in a clean log raised acceptance_drop). The test warms up again instead.
const ForgetHalfLives = 4

// test is what both sequential tests share: window means, their baseline, the CUSUM on them,
// and the warm-up that restarts after a gap the baseline forgot.
type test struct {
	o       Options
	block   estimate.BlockMean
	base    estimate.EWMA // of window means
	cusum   estimate.CUSUM
	windows int   // since the start, or since the last gap that emptied the baseline
	lastT   int64 // end of the previous window
}

func newTest(o Options, side estimate.Side) test {
	return test{
		o:     o,
		block: estimate.NewBlockMean(o.Window),
		base:  estimate.NewEWMA(o.HalfLife),
		cusum: estimate.NewCUSUM(estimate.CUSUMOptions{K: o.K, H: o.H, Side: side}),
	}
}

// window starts the evaluation of a window that ended at t: after a gap the baseline forgot,
// the test warms up again. It reports whether the test is armed.
func (d *test) window(t int64) bool {
	if d.lastT != 0 && t-d.lastT > ForgetHalfLives*int64(d.o.HalfLife) {
		d.windows = 0
		d.cusum.Reset()
	}
	d.lastT = t
	d.windows++
	return d.windows > d.o.Warmup
}

// RunLength is the number of windows the current excursion has lasted.
func (d *test) RunLength() int { return d.cusum.RunLength() }

// Quiet reports whether the test suspects nothing at all (its statistic is zero).
func (d *test) Quiet() bool { return d.cusum.Stat() == 0 }

// learning reports whether no change is suspected, so that the baseline may learn: while one
// is, it must not, or the change would become normal.
func (d *test) learning() bool { return d.cusum.Stat() <= d.o.H/2 }

func (d *test) event() Event {
	switch {
	case d.cusum.Alarm():
		return Raise
	case d.cusum.Stat() == 0:
		return Clear
	}
	return None
}
