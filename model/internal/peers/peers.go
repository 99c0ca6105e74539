// Package peers compares one rank of an engine process with the other ranks of the same
// process (rank skew). Ranks of one process run the same model on the same kind of GPU, so
// a rank whose drafter accepts far less, or whose steps at the same context take far longer,
// than its peers' is broken in a way its own history cannot show: it has always been so.
package peers

import (
	"slices"

	"github.com/specwatch/specwatch/model/schema"
)

// Profile is what a rank looks like now: its acceptance (a mean over tens of minutes, so that
// the text each rank happens to serve averages out), and its step model with the context range
// it learned and the context it runs at.
type Profile struct {
	Accept       float64 // mean commit length; 0 if unknown
	A, B         float64 // step = A + B·context, seconds
	Lo, Hi, Ctx  float64 // learned context range; current context
	HasStep      bool
	AcceptActive bool // acceptance already explained by a finding of its own (a stuck drafter)
}

// Options are the thresholds; zero fields take the defaults.
type Options struct {
	// AcceptFall: a rank whose acceptance is this fraction below its peers' median is off
	// (default 0.30). StepRise: one whose predicted step at its context is this fraction above
	// its peers' is off (default 0.25).
	AcceptFall, StepRise float64
	// Raise consecutive checks off raise; Clear consecutive checks on clear (defaults 15, 5: at
	// one check a minute, a quarter of an hour).
	Raise, Clear int
}

func (o *Options) defaults() {
	if o.AcceptFall <= 0 {
		o.AcceptFall = 0.30
	}
	if o.StepRise <= 0 {
		o.StepRise = 0.25
	}
	if o.Raise <= 0 {
		o.Raise = 15
	}
	if o.Clear <= 0 {
		o.Clear = 5
	}
}

// rangeMargin lets a peer's fit answer a little past the contexts it learned.
const rangeMargin = 1.1

// Ratios returns self's acceptance over the peers' median, and the median over peers of
// self's predicted step over theirs at self's context (only peers that learned that context);
// ok false for a ratio no peer could give. scratch is reused to avoid allocating.
func Ratios(self Profile, peers []Profile, scratch []float64) (accept, step float64, okA, okS bool, _ []float64) {
	v := scratch[:0]
	for _, p := range peers {
		if p.Accept > 0 && !p.AcceptActive {
			v = append(v, p.Accept)
		}
	}
	if len(v) > 0 && self.Accept > 0 {
		accept, okA = self.Accept/median(v), true
	}
	v = v[:0]
	if self.HasStep {
		own := self.A + self.B*self.Ctx
		for _, p := range peers {
			if p.HasStep && self.Ctx >= p.Lo/rangeMargin && self.Ctx <= p.Hi*rangeMargin {
				if theirs := p.A + p.B*self.Ctx; theirs > 0 && own > 0 {
					v = append(v, own/theirs)
				}
			}
		}
		if len(v) > 0 {
			step, okS = median(v), true
		}
	}
	return accept, step, okA, okS, v
}

func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// Judge keeps one rank's hysteresis for the two findings.
type Judge struct {
	o                 Options
	accBad, accGood   int
	stepBad, stepGood int
	accOff, stepOff   bool
}

// NewJudge returns a Judge with o's thresholds.
func NewJudge(o Options) Judge {
	o.defaults()
	return Judge{o: o}
}

// Forget drops the consecutive checks counted so far; whether the rank is off stays.
func (j *Judge) Forget() { j.accBad, j.accGood, j.stepBad, j.stepGood = 0, 0, 0, 0 }

// Verdict is what one check found: whether the rank is off now, and whether it just became so
// or stopped being so.
type Verdict struct{ Off, Raised, Cleared bool }

// Check records one comparison and returns the verdicts for acceptance and step.
func (j *Judge) Check(self Profile, accept, step float64, okA, okS bool) (acc, st Verdict) {
	o := &j.o
	acc = judge(&j.accOff, &j.accBad, &j.accGood, okA && !self.AcceptActive, okA && accept < 1-o.AcceptFall, o)
	st = judge(&j.stepOff, &j.stepBad, &j.stepGood, okS, okS && step > 1+o.StepRise, o)
	return acc, st
}

func judge(off *bool, bad, good *int, known, isOff bool, o *Options) Verdict {
	switch {
	case !known:
		*bad = 0 // no comparison: neither evidence nor recovery
	case isOff:
		*bad, *good = *bad+1, 0
	default:
		*bad, *good = 0, *good+1
	}
	var v Verdict
	if !*off && *bad >= o.Raise {
		*off, v.Raised = true, true
	} else if *off && *good >= o.Clear {
		*off, v.Cleared = false, true
	}
	v.Off = *off
	return v
}

// Detail is the finding's sentence: acceptance if that was raised, else the step at the
// context ctxPhrase names; n is the number of peers.
func Evidence(self Profile, acceptRaised bool, accept, step float64, n int) schema.Evidence {
	if acceptRaised {
		return schema.Ev(schema.CodeSkewAccept, self.Accept, 100*(1-accept), self.Accept/accept, float64(n))
	}
	own := self.A + self.B*self.Ctx
	return schema.Ev(schema.CodeSkewStep, self.Ctx, 100*(step-1), 1000*own, 1000*own/step, float64(n))
}
