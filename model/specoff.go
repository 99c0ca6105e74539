package model

import (
	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/sample"
)

// specObserve feeds model/internal/specoff one decode observation: steps with or without drafts.
func (se *Series) specObserve(t int64, running float64, drafting bool) {
	d := se.drafting.Observe(t, running, drafting, se.opts.SpecOffAfter, se.opts.SpecOffAfter)
	if d.Event.Code != schema.CodeNone {
		se.events.Add("speculation", t, d.Event)
	}
	if d.Raise {
		se.raise(SpeculationDisabled, t, se.drafting.Evidence(se.opts.SpecOffAfter))
	} else if d.Clear {
		se.clear(SpeculationDisabled, t)
	}
}

// notDrafting reports whether s is steps without drafts (model/internal/specoff).
func (se *Series) notDrafting(s *sample.Sample, commit float64, hasCommit bool) bool {
	steps, ok := s.Get(sample.SpecSteps)
	return se.drafting.NotDrafting(steps, ok, commit, hasCommit)
}
