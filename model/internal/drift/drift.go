// Package drift holds the state machines of the tests for a change that persists: a fall of
// commit length (acceptance_drop), a rise of step time (step_time_regression), both one-sided
// CUSUMs on window means against a learning baseline, and a change of log format
// (format_drift). They take values and times and return decisions; the model raises and
// clears the anomalies and writes their sentences, so that what a test decides can be read,
// and tested, apart from what the report says of it.
package drift

import (
	"math"
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
	// WindowTime closes a window of at least MinWindow values before it has Window: at a slow
	// cadence (vLLM's one line per 10 s) Window values would be minutes, and Warmup of them
	// hours. The spread of window means is measured, so their sizes may vary.
	WindowTime time.Duration
	MinWindow  int
	// ArmAfter arms the test once it has EarlyWindows windows spanning this long, before
	// Warmup: with a wider spread (earlySpread), so that the first minutes are judged too.
	ArmAfter     time.Duration
	EarlyWindows int
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
	start   int64         // of the unfinished window
	base    estimate.EWMA // of window means
	cusum   estimate.CUSUM
	windows int   // since the start, or since the last gap that emptied the baseline
	since   int64 // start of the first of those windows
	lastT   int64 // end of the previous window
	armed   bool
	armedAt int64 // when the test last armed
}

func newTest(o Options, side estimate.Side) test {
	return test{
		o:     o,
		block: estimate.NewBlockMean(o.Window),
		base:  estimate.NewEWMA(o.HalfLife),
		cusum: estimate.NewCUSUM(estimate.CUSUMOptions{K: o.K, H: o.H, Side: side}),
	}
}

// add adds value v at t to the unfinished window; when that completes it, it returns the
// window's mean and true.
func (d *test) add(t int64, v float64) (float64, bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	if d.block.Pending() == 0 {
		d.start = t
	}
	if m, full := d.block.Add(v); full {
		return m, true
	}
	if d.o.WindowTime > 0 && d.block.Pending() >= d.o.MinWindow && t-d.start >= int64(d.o.WindowTime) {
		return d.block.Close()
	}
	return 0, false
}

// window starts the evaluation of a window that ended at t: after a gap the baseline forgot,
// the test warms up again. It reports whether the test is armed.
func (d *test) window(t int64) bool {
	if d.lastT != 0 && t-d.lastT > ForgetHalfLives*int64(d.o.HalfLife) {
		d.windows, d.armed = 0, false
		d.cusum.Reset()
	}
	if d.windows == 0 {
		d.since = d.start
	}
	d.lastT = t
	d.windows++
	if !d.armed && (d.windows > d.o.Warmup || d.windows >= d.o.EarlyWindows && d.o.ArmAfter > 0 && t-d.since >= int64(d.o.ArmAfter)) {
		d.armed, d.armedAt = true, t
	}
	return d.armed
}

// earlySpread widens a baseline's spread learned from fewer windows than Warmup: the spread of
// ten window means is itself uncertain by a quarter, and the first minutes may have seen one
// kind of text only.
func (d *test) earlySpread(sd float64) float64 {
	if d.windows >= d.o.Warmup {
		return sd
	}
	return sd * math.Sqrt(float64(d.o.Warmup)/float64(max(d.windows, 1)))
}

// Readiness is whether the test is armed, when it last armed (Unix ns, 0 if never), and while
// it is not, how many more values it needs at least: the early arming's windows, or the full
// warm-up's when ArmAfter is off.
func (d *test) Readiness() (armed bool, at int64, need int) {
	if d.armed {
		return true, d.armedAt, 0
	}
	windows := d.o.Warmup + 1
	if d.o.ArmAfter > 0 {
		windows = d.o.EarlyWindows
	}
	per := d.o.Window
	if d.o.WindowTime > 0 {
		per = d.o.MinWindow
	}
	return false, d.armedAt, max(0, (windows-d.windows)*per-d.block.Pending())
}

// Retune takes o's thresholds (K, H, MinEffect) from the next window on; the windows, the
// baseline and the statistic so far stay, as do o's other settings, which shape them.
func (d *test) Retune(o Options) {
	d.o.K, d.o.H, d.o.MinEffect = o.K, o.H, o.MinEffect
	d.cusum.Retune(o.K, o.H)
}

// Discard drops the unfinished window: its values are from before a pause whose end would
// otherwise close it.
func (d *test) Discard() { d.block.Reset() }

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
