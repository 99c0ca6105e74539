package model

import (
	"github.com/specwatch/specwatch/model/internal/position"
	"github.com/specwatch/specwatch/parse"
)

// perPosition feeds a sample's per-position list, if it has one and its source holds the
// figure (the counters', once they have spoken: fusion.go). Samples are weighted by their
// drafted tokens.
func (se *Series) perPosition(s *parse.Sample) {
	if s.NPos == 0 {
		return
	}
	ok, moved := se.fus.PerPosition.Take(s.Source, parse.SourceMetrics)
	if !ok {
		return
	}
	if moved {
		se.pos = position.Acc{} // the counters' figures replace the logs' averages
	}
	w := 1.0
	if d, ok := s.Get(parse.Drafted); ok {
		if d <= 0 {
			return // no draft in the interval: nothing was measured
		}
		w = d
	}
	se.pos.Add(s.Time, w, s.PerPos[:s.NPos], float64(se.opts.LongHalfLife))
}

// PerPosition is acceptance per draft position: Acceptance[i] is the share of verify steps
// whose draft token at position i+1 was accepted, Conditional[i] the same given that position
// i was (Acceptance[i] / Acceptance[i-1]). Advice is set when positions at the end cost more
// than they add (docs/report.md).
type PerPosition struct {
	Acceptance  []float64       `json:"acceptance"`
	Conditional []float64       `json:"conditional"`
	Samples     int64           `json:"samples"`
	Advice      *PositionAdvice `json:"advice,omitempty"`
}

// PositionAdvice says a shorter draft would commit nearly the same tokens for less work.
type PositionAdvice struct {
	Configured         int     `json:"configured"`
	Suggested          int     `json:"suggested"`
	CommitLen          float64 `json:"commit_len"`
	SuggestedCommitLen float64 `json:"suggested_commit_len"`
	Detail             string  `json:"detail"`
}

// minPositionSamples: advice needs this many samples of one configuration.
const minPositionSamples = 5

// positionReport fills the report's per-position part and adds the advice to the explanation.
func (se *Series) positionReport(r *SeriesReport) {
	a := se.pos.Acceptance(nil)
	if len(a) == 0 {
		return
	}
	pp := &PerPosition{Samples: se.pos.Samples()}
	for i, x := range a {
		pp.Acceptance = append(pp.Acceptance, round(x, 4))
		c := x
		if i > 0 {
			c = 0
			if a[i-1] > 0 {
				c = x / a[i-1]
			}
		}
		pp.Conditional = append(pp.Conditional, round(c, 4))
	}
	if ad, ok := position.Advise(a, se.opts.PositionCost, draftOption(se.labels.Engine)); ok && pp.Samples >= minPositionSamples {
		pp.Advice = &PositionAdvice{Configured: ad.Configured, Suggested: ad.Suggested, CommitLen: round(ad.Commit, 3),
			SuggestedCommitLen: round(ad.Kept, 3), Detail: ad.Detail}
		if r.Explanation != "" {
			r.Explanation += " "
		}
		r.Explanation += ad.Detail
	}
	r.PerPosition = pp
}

// draftOption names the setting of the draft length as the engine spells it.
func draftOption(engine string) string {
	switch engine {
	case parse.EngineVLLM.String():
		return "num_speculative_tokens"
	case parse.EngineLlamaCpp.String():
		return "the draft length (--spec-draft-n-max, --draft-max in older builds)"
	}
	return "the draft length"
}
