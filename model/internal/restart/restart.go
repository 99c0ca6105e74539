// Package restart compares an engine after a restart or upgrade with the same engine before
// it: the step at the contexts the old step model learned, and acceptance. A new build, driver
// or drafter checkpoint that is slower or accepts less is otherwise learned as the new normal
// by every baseline that starts afresh, and only a comparison across the restart names it.
package restart

import (
	"math"

	"github.com/specwatch/specwatch/model/schema"
)

// Before is the engine as it was when the start-up line came.
type Before struct {
	At       int64
	A, B     float64 // step model, seconds and seconds per context unit
	Lo, Hi   float64 // the context range it learned
	Accept   float64 // mean commit length
	HasStep  bool
	HasAccpt bool
}

// Options are the thresholds and sample sizes; zero fields take the defaults.
type Options struct {
	// Steps and Accepts are the samples after the restart the comparison waits for
	// (defaults 150 decode points in range, 900 commit lengths: 5 and 30 minutes at 2 s).
	Steps, Accepts int
	// StepRise is the slowdown reported (default 0.10); AcceptFall the acceptance fall
	// (default 0.15: a half hour of text-dependent acceptance spreads by a few per cent).
	StepRise, AcceptFall float64
}

func (o *Options) defaults() {
	if o.Steps <= 0 {
		o.Steps = 150
	}
	if o.Accepts <= 0 {
		o.Accepts = 900
	}
	if o.StepRise <= 0 {
		o.StepRise = 0.10
	}
	if o.AcceptFall <= 0 {
		o.AcceptFall = 0.15
	}
}

// rangeMargin lets the old fit answer a little past the contexts it learned.
const rangeMargin = 1.1

// Comparison accumulates the samples after one restart. It is a value type.
type Comparison struct {
	o        Options
	before   Before
	logSum   float64 // of ln(step / old prediction)
	steps    int
	accSum   float64
	accepts  int
	started  bool
	finished bool
}

// Start begins a comparison against b.
func Start(b Before, o Options) Comparison {
	o.defaults()
	return Comparison{o: o, before: b, started: b.HasStep || b.HasAccpt}
}

// Pending reports whether a comparison is waiting for samples.
func (c *Comparison) Pending() bool { return c.started && !c.finished }

// Before returns what the comparison compares with.
func (c *Comparison) Before() Before { return c.before }

// AddStep records a decode point after the restart; points outside the old range are not
// comparable and are skipped.
func (c *Comparison) AddStep(ctx, step float64) {
	b := &c.before
	if !c.Pending() || !b.HasStep || step <= 0 || ctx < b.Lo/rangeMargin || ctx > b.Hi*rangeMargin {
		return
	}
	if pred := b.A + b.B*ctx; pred > 0 {
		c.logSum += math.Log(step / pred)
		c.steps++
	}
}

// AddAccept records a commit length after the restart.
func (c *Comparison) AddAccept(v float64) {
	if c.Pending() && c.before.HasAccpt && v > 0 {
		c.accSum += v
		c.accepts++
	}
}

// Result is the comparison's outcome.
type Result struct {
	StepChange   float64 // relative: +0.2 is 20 % slower at the same context
	AcceptNow    float64
	AcceptChange float64 // relative: −0.2 is 20 % less
	HasStep      bool
	HasAccept    bool
	Regressed    bool
	Steps        int
}

// Result returns the outcome once every comparison the old state allows has its samples
// (ready false before); after that it returns ready false again, so each restart is judged once.
// When the engine no longer runs at the old contexts, acceptance is judged alone after twice
// its sample count; a slowdown is reported as soon as the steps show it, without waiting for
// acceptance's longer sample.
func (c *Comparison) Result() (Result, bool) {
	b, o := &c.before, &c.o
	if !c.Pending() {
		return Result{}, false
	}
	stepsDone := !b.HasStep || c.steps >= o.Steps || (b.HasAccpt && c.accepts >= 2*o.Accepts)
	slower := b.HasStep && c.steps >= o.Steps && math.Exp(c.logSum/float64(c.steps))-1 > o.StepRise
	if !slower && (!stepsDone || (b.HasAccpt && c.accepts < o.Accepts)) {
		return Result{}, false
	}
	c.finished = true
	var r Result
	if b.HasStep && c.steps >= o.Steps {
		r.HasStep, r.Steps = true, c.steps
		r.StepChange = math.Exp(c.logSum/float64(c.steps)) - 1
		r.Regressed = r.StepChange > o.StepRise
	}
	if b.HasAccpt && c.accepts >= o.Accepts {
		r.HasAccept = true
		r.AcceptNow = c.accSum / float64(c.accepts)
		r.AcceptChange = r.AcceptNow/b.Accept - 1
		r.Regressed = r.Regressed || r.AcceptChange < -o.AcceptFall
	}
	return r, true
}

// Evidence is what changed across the restart, as code c (schema.CodeRestartRegressed or
// CodeRestartFine) lays its numbers out.
func (r Result) Evidence(c schema.Code, before Before) schema.Evidence {
	e := schema.Ev(c)
	e.T[0] = before.At
	if r.HasStep {
		e.N[0], e.N[1], e.N[2] = 1, pct(r.StepChange), float64(r.Steps)
	}
	if r.HasAccept {
		e.N[3], e.N[4], e.N[5], e.N[6] = 1, r.AcceptNow, before.Accept, pct(r.AcceptChange)
	}
	return e
}

// pct is a fraction in whole percent, without the "-0" that rounding a tiny negative gives.
func pct(x float64) float64 {
	if v := math.Round(100 * x); v != 0 {
		return v
	}
	return 0
}
