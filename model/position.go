package model

import (
	"github.com/specwatch/specwatch/model/internal/position"
	"github.com/specwatch/specwatch/sample"
)

// perPosition feeds a sample's per-position list, if it has one and its source holds the
// figure (the counters', once they have spoken: fusion.go). Samples are weighted by their
// drafts: llama.cpp's counted (DraftSize), the others' in proportion, by drafted tokens.
// llama.cpp's statistics lines serve only a series whose requests state no list.
func (se *Series) perPosition(s *sample.Sample) {
	stats := llamaStatistics(s)
	if s.NPos == 0 || stats && se.posReq {
		return
	}
	ok, moved := se.fus.PerPosition.Take(s.Source, sample.SourceMetrics)
	if !ok {
		return
	}
	req := s.Event == sample.EventRequest
	if moved || req && !se.posReq {
		se.pos = position.Acc{} // the counters' figures replace the logs', requests' the statistics'
	}
	se.posReq = se.posReq || req
	v := s.PerPos[:s.NPos]
	if s.Event == sample.EventTotals {
		se.pos.Set(s.Time, v) // cumulative: the latest is the whole history
		return
	}
	d, hasD := s.Get(sample.Drafted)
	w := 1.0
	switch {
	case s.Engine == sample.EngineLlamaCpp && s.Source == sample.SourceLog:
		w = se.drafts.Drafts(v, s.Value(sample.Accepted), d, s.Value(sample.Steps))
	case hasD:
		w = d
	}
	if w <= 0 {
		return // no draft in the interval: nothing was measured
	}
	se.pos.Add(s.Time, w, v, float64(se.opts.LongHalfLife))
}

// The accumulator holds every position the parser reads.
var _ [position.Max - sample.MaxPerPosition]struct{}

// minPositionSamples: advice needs this many samples of one configuration.
const minPositionSamples = 5

// positionReport fills the report's per-position part and adds the advice to the explanation.
func (se *Series) positionReport(r *SeriesReport) {
	a := se.pos.Acceptance(nil)
	if len(a) == 0 {
		return
	}
	pp := &PerPosition{Samples: se.pos.Samples()}
	for i, c := range position.Conditional(a) {
		pp.Acceptance, pp.Conditional = append(pp.Acceptance, round(a[i], 4)), append(pp.Conditional, round(c, 4))
	}
	if ad, ok := position.Advise(a, se.opts.PositionCost); ok && pp.Samples >= minPositionSamples {
		pp.Advice = &PositionAdvice{Configured: ad.Configured, Suggested: ad.Suggested, CommitLen: round(ad.Commit, 3),
			SuggestedCommitLen: round(ad.Kept, 3), Commit: ad.Commit, Kept: ad.Kept, Cost: se.opts.PositionCost,
			Dropped: a[ad.Suggested:]}
	}
	r.PerPosition = pp
}
