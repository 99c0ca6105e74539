package model

import (
	"time"

	"github.com/specwatch/specwatch/parse"
)

// fusion decides, per figure, which source a series takes it from when one engine rank is
// watched through its logs and its /metrics at once. The two describe the same steps, so
// taking a figure from both would count every step twice; each figure comes from the source
// that states it best:
//   - acceptance (commit length, accept rate, per position): the counters, which are exact
//     over each interval, where log lines print rounded averages (and some never print it);
//   - step time and context: the logs, whose lines are as frequent as the engine prints and
//     name the context (SGLang #token) where /metrics has only gauges as of the scrape.
//
// A figure starts with whichever source gives it first and moves, once, to the better source
// when that one appears; it never moves back (a scrape that fails for a while does not hand
// the acceptance back to the logs and then take it again).
type fusion struct {
	seen                  [2]bool // by parse.Source
	commit, points, perPo int8    // the source of each figure, -1 before any
}

func newFusion() fusion { return fusion{commit: -1, points: -1, perPo: -1} }

// take applies the rule to one figure: better is the source that wins it.
func take(fig *int8, src, better parse.Source) bool {
	switch {
	case *fig < 0 || *fig == int8(src):
		*fig = int8(src)
		return true
	case src == better:
		*fig = int8(src)
		return true
	}
	return false
}

// takeCommit reports whether the sample's acceptance figures feed the series. On the move to
// the counters the line-kind choice starts again, so the counters' sample kind decides it.
func (se *Series) takeCommit(s *parse.Sample) bool {
	was := se.fus.commit
	ok := take(&se.fus.commit, s.Source, parse.SourceMetrics)
	if ok && was >= 0 && was != se.fus.commit {
		se.commitSrc = srcNone
	}
	return ok
}

// takePoints reports whether the sample's step and context feed the fit. On the move to the
// logs, a pending engine line from the scrape is dropped.
func (se *Series) takePoints(s *parse.Sample) bool {
	was := se.fus.points
	ok := take(&se.fus.points, s.Source, parse.SourceLog)
	if ok && was >= 0 && was != se.fus.points {
		se.pointSrc = srcNone
		se.pending.ok = false
	}
	return ok
}

// Sources says where a series' figures came from: "logs" or "metrics" (the engine's own
// /metrics); a figure no source gave is empty. Reported for series the scrape source fed.
type Sources struct {
	Inputs      []string `json:"inputs"`
	CommitLen   string   `json:"commit_len,omitempty"`
	PerPosition string   `json:"per_position,omitempty"`
	Step        string   `json:"step,omitempty"` // step time and context
}

func (f *fusion) report() *Sources {
	name := func(v int8) string {
		if v < 0 {
			return ""
		}
		return parse.Source(v).String()
	}
	s := &Sources{Inputs: []string{}, CommitLen: name(f.commit), PerPosition: name(f.perPo), Step: name(f.points)}
	for i, ok := range f.seen {
		if ok {
			s.Inputs = append(s.Inputs, parse.Source(i).String())
		}
	}
	return s
}

// maxEvents bounds the events a series keeps (the latest ones).
const maxEvents = 32

// EventJSON is one event in a series' life that is not an anomaly: "restart", an engine's
// counters seen going back (it restarted, or its counters were cleared).
type EventJSON struct {
	Kind   string    `json:"kind"`
	Time   time.Time `json:"time"`
	Detail string    `json:"detail"`
}

// event records what an event sample says; restarts are the only events kept.
func (se *Series) event(s *parse.Sample) {
	if s.Event != parse.EventRestart {
		return
	}
	if len(se.events) == maxEvents {
		copy(se.events, se.events[1:])
		se.events = se.events[:maxEvents-1]
	}
	se.events = append(se.events, EventJSON{Kind: "restart", Time: time.Unix(0, s.Time).UTC(),
		Detail: "the engine's counters went back: it restarted (or its counters were cleared); the interval across it is not counted"})
	se.restarts++
}

// fusionReport adds the per-position figures and advice, the events and the sources.
func (se *Series) fusionReport(r *SeriesReport) {
	se.positionReport(r)
	r.Events = append([]EventJSON(nil), se.events...)
	if se.fus.seen[parse.SourceMetrics] {
		r.Sources = se.fus.report() // a series of logs alone says nothing new here
	}
	if se.restarts > 0 {
		if r.Explanation != "" {
			r.Explanation += " "
		}
		r.Explanation += sprintf("The engine restarted %d time(s), last at %s (its counters went back).", se.restarts,
			se.events[len(se.events)-1].Time.Format(time.RFC3339))
	}
}
