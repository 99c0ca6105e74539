package drift

import (
	"math"

	"github.com/specwatch/specwatch/model/internal/estimate"
)

// Drop is acceptance_drop's sequential test: a one-sided CUSUM on window means of commit
// length, standardised against the series' own baseline (long EWMA of window means and their
// spread). The spread is measured, so on a workload whose acceptance swings with the text
// (2.5 on hard reasoning, 7 on boilerplate) those swings set the scale and are not alarms,
// while a service with steady acceptance has a tight scale and a 10 % fall stands out within
// minutes. It is a value type and allocates nothing.
type Drop struct {
	test
	// The latest window, for the detail sentence: its mean, the baseline's mean and spread.
	Mean, Base, Spread float64
}

// NewDrop returns the test with o's settings.
func NewDrop(o Options) Drop { return Drop{test: newTest(o, estimate.SideDown)} }

// minRelSpread floors the baseline spread at 1 % of the mean: a series that printed the same
// figure for an hour must not alarm on its first 0.01 wobble.
const minRelSpread = 0.01

// Add records commit length c at t. When c completed a window it returns the window mean
// (which other tests share), true, and what the window decided.
func (d *Drop) Add(t int64, c float64) (float64, bool, Event) {
	m, full := d.add(t, c)
	if !full {
		return 0, false, None
	}
	armed := d.window(t)
	mu, sd := d.base.Mean(), d.earlySpread(math.Max(d.base.Std(), minRelSpread*d.base.Mean()))
	if armed && sd > 0 {
		// Only the shortfall beyond MinEffect counts: a 3 % dip for a few minutes is text,
		// not a drafter problem, and window means are precise enough to see it.
		d.cusum.Update((m - mu*(1-d.o.MinEffect)) / sd)
	}
	if d.learning() {
		d.base.Update(t, m)
	}
	d.Mean, d.Base, d.Spread = m, mu, sd
	return m, true, d.event()
}
