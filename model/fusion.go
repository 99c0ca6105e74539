package model

import (
	"github.com/specwatch/specwatch/model/internal/fusion"
	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/sample"
)

// takeCommit reports whether the sample's acceptance figures feed the series (the rule is in
// model/internal/fusion: the counters, llama.cpp's logs). On the move to the better source the
// line-kind choice starts again, so that source's sample kind decides it.
func (se *Series) takeCommit(s *sample.Sample) bool {
	ok, moved := se.fus.Commit.Take(s.Source, fusion.CommitFrom(s.Engine))
	if moved {
		se.commitSrc = srcNone
	}
	return ok
}

// takePoints reports whether the sample's step and context feed the fit. On the move to the
// logs, a pending engine line from the scrape is dropped.
func (se *Series) takePoints(s *sample.Sample) bool {
	ok, moved := se.fus.Points.TakeRanked(s.Source, fusion.PointsRank)
	if moved {
		se.pointSrc = srcNone
		se.pending.Take() // dropped
		if s.Source == sample.SourceForwardPass && se.kvContext {
			se.relearnInTokens()
		}
	}
	return ok
}

func sources(f *fusion.Choice) *Sources {
	return &Sources{Inputs: f.Inputs(), CommitLen: f.Commit.Name(), PerPosition: f.PerPosition.Name(), Step: f.Points.Name()}
}

// EventJSON is one event in a series' life that is not an anomaly (model/internal/events).
type EventJSON = schema.Event

// event records a restart, or an engine's word on its speculation.
func (se *Series) event(s *sample.Sample) {
	if s.Event == sample.EventRestart {
		se.events.Restart(s.Time, s.Source, restartQuiet)
	}
	if v, ok := s.Get(sample.SpecSteps); ok && s.Event == sample.EventSpecPolicy {
		se.det.specoff.tr.Stated(v, s.Value(sample.AcceptedDrafts), s.Value(sample.SpecThreshold), s.Engine == sample.EngineTRTLLM)
	}
}

// fusionReport adds the per-position figures and advice, the events and the sources.
func (se *Series) fusionReport(r *SeriesReport) {
	se.positionReport(r)
	r.Events = se.events.Report()
	_, r.NotSpeculating = se.det.specoff.tr.Off()
	if se.fus.Saw(sample.SourceMetrics) || se.fus.Saw(sample.SourceForwardPass) {
		r.Sources = sources(&se.fus) // a series of logs alone says nothing new here
	}
	if d := r.Diagnosis; d != nil {
		d.Restarts, d.LastRestart, d.RestartBy = se.events.Restarts()
	}
}
