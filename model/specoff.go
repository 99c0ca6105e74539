package model

import (
	"github.com/specwatch/specwatch/model/internal/specoff"
	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/sample"
)

// specoffDetector is speculation_disabled: an engine that drafted at a batch size stopped
// drafting there for longer than SpecOffAfter (model/internal/specoff). Switches that come
// with the batch size are events, not anomalies.
type specoffDetector struct{ tr specoff.Tracker }

// specObserve feeds speculation_disabled one decode observation: steps with or without drafts.
func (se *Series) specObserve(t int64, running float64, drafting bool) {
	o := se.at(obsDrafting, t)
	o.running, o.drafting = running, drafting
	se.feed(SpeculationDisabled, o)
}

func (d *specoffDetector) observe(se *Series, o *obs) {
	after := se.opts.SpecOffAfter
	dec := d.tr.Observe(o.t, o.running, o.drafting, after, after)
	if dec.Event.Code != schema.CodeNone {
		se.events.Add("speculation", o.t, dec.Event)
	}
	if dec.Raise {
		se.raise(SpeculationDisabled, o.t, d.tr.Evidence(after))
	} else if dec.Clear {
		se.clear(SpeculationDisabled, o.t)
	}
}

// clear keeps the tracker: which batch sizes the engine drafted at is what it learned, and an
// engine off before a pause is still off after it.
func (d *specoffDetector) clear()                 {}
func (d *specoffDetector) reconfigure(o *Options) {} // SpecOffAfter is read at each observation

// notDrafting reports whether s is steps without drafts (model/internal/specoff).
func (se *Series) notDrafting(s *sample.Sample, commit float64, hasCommit bool) bool {
	steps, ok := s.Get(sample.SpecSteps)
	return se.det.specoff.tr.NotDrafting(steps, ok, commit, hasCommit)
}
