package drift

import (
	"math"
	"time"

	"github.com/specwatch/specwatch/model/internal/estimate"
)

// Regression is step_time_regression's sequential test: a one-sided CUSUM on window means of
// the log residual ln(step / ŝ), ŝ the model's reference fit. The model refreshes that
// reference whenever the test says no slowdown is suspected (Learn), and once more after
// Relearn in alarm: a permanent change (a new driver, another GPU clock) is the new normal,
// and the operator has been told. It is a value type and allocates nothing.
type Regression struct {
	test
	relearn time.Duration
	alarmAt int64
	// The latest window, for the detail sentence: its mean log residual, the baseline's mean,
	// and the run length before any relearning reset it.
	Mean, Base float64
	Run        int
}

// Step is what one residual decided.
type Step struct {
	Event Event
	// Learn says the reference should be refreshed: the window found no slowdown, or the
	// alarm lasted past Relearn (the test then starts afresh).
	Learn bool
}

// NewRegression returns the test with o's settings; relearn is how long an alarm lasts before
// the change is taken as the new normal.
func NewRegression(o Options, relearn time.Duration) Regression {
	return Regression{test: newTest(o, estimate.SideUp), relearn: relearn}
}

// maxLogResidual clips one point's log residual (±0.4: 49 % slower, 33 % faster).
const maxLogResidual = 0.4

// minResidualSpread floors the spread of a window's mean log residual: 1 %.
const minResidualSpread = 0.01

// Add records the log residual r of a point at t.
func (d *Regression) Add(t int64, r float64) Step {
	// Each point's say is bounded, so one odd line (a pause that looked like continuous
	// decoding) cannot move a window; a real slowdown moves every point of it.
	m, full := d.add(t, max(-maxLogResidual, min(maxLogResidual, r)))
	if !full {
		return Step{}
	}
	armed := d.window(t)
	mu, sd := d.base.Mean(), math.Max(d.base.Std(), minResidualSpread)
	if armed {
		// Only the excess over MinEffect counts: a model 2 % off for an hour is not news, and
		// window means are precise enough to see 2 %.
		d.cusum.Update((m - mu - math.Log1p(d.o.MinEffect)) / sd)
	}
	var s Step
	if d.learning() {
		d.base.Update(t, m)
		s.Learn = true
	}
	d.Mean, d.Base, d.Run = m, mu, d.cusum.RunLength()
	s.Event = d.event()
	switch s.Event {
	case Raise:
		if d.alarmAt == 0 {
			d.alarmAt = t
		}
		if time.Duration(t-d.alarmAt) > d.relearn {
			s.Learn = true
			d.cusum.Reset()
		}
	case Clear:
		d.alarmAt = 0
	}
	return s
}
