package model

import (
	"time"

	"github.com/specwatch/specwatch/model/internal/fusion"
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
	ok, moved := se.fus.Points.Take(s.Source, sample.SourceLog)
	if moved {
		se.pointSrc = srcNone
		se.pending.Take() // dropped
	}
	return ok
}

func sources(f *fusion.Choice) *Sources {
	return &Sources{Inputs: f.Inputs(), CommitLen: f.Commit.Name(), PerPosition: f.PerPosition.Name(), Step: f.Points.Name()}
}

// maxEvents bounds the events a series keeps (the latest ones).
const maxEvents = 32

// EventJSON is one event in a series' life that is not an anomaly: "restart", an engine's
// counters seen going back (it restarted, or its counters were cleared).
type EventJSON struct {
	Kind   string    `json:"kind"`
	Time   time.Time `json:"time"`
	Detail string    `json:"detail"`
	src    sample.Source
}

// event records what an event sample says; restarts are the only events kept. A restart the
// other source saw within restartQuiet is the same one (the log's start-up line, then the
// counters at the next scrape), not a second.
func (se *Series) event(s *sample.Sample) {
	if s.Event != sample.EventRestart {
		return
	}
	if n := len(se.events); n > 0 {
		last := &se.events[n-1]
		if d := s.Time - last.Time.UnixNano(); last.src != s.Source && d < restartQuiet && d > -restartQuiet {
			return
		}
	}
	if len(se.events) == maxEvents {
		copy(se.events, se.events[1:])
		se.events = se.events[:maxEvents-1]
	}
	detail := "the engine's counters went back: it restarted (or its counters were cleared); the interval across it is not counted"
	if s.Source != sample.SourceMetrics {
		detail = "the engine logged its start-up line: it (re)started"
	}
	se.events = append(se.events, EventJSON{Kind: "restart", Time: time.Unix(0, s.Time).UTC(), Detail: detail, src: s.Source})
	se.restarts++
}

// fusionReport adds the per-position figures and advice, the events and the sources.
func (se *Series) fusionReport(r *SeriesReport) {
	se.positionReport(r)
	r.Events = append([]EventJSON(nil), se.events...)
	for i := range r.Events {
		r.Events[i].src = 0 // the report says it in Detail, and equals its JSON round trip
	}
	if se.fus.Saw(sample.SourceMetrics) {
		r.Sources = sources(&se.fus) // a series of logs alone says nothing new here
	}
	if se.restarts > 0 {
		if r.Explanation != "" {
			r.Explanation += " "
		}
		last := se.events[len(se.events)-1]
		why := "its counters went back"
		if last.src != sample.SourceMetrics {
			why = "it logged its start-up"
		}
		r.Explanation += sprintf("The engine restarted %d time(s), last at %s (%s).", se.restarts, last.Time.Format(time.RFC3339), why)
	}
}
