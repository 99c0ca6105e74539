// Package events keeps the latest events of a series' life that are not anomalies: restarts,
// and speculation switched on or off with the batch size (model/internal/specoff).
package events

import (
	"time"

	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/sample"
)

// Max bounds the events a series keeps (the latest ones).
const Max = 32

// event is one event and the source that saw it.
type event struct {
	schema.Event
	src sample.Source
}

// List is a series' events, oldest first, and its count of restarts.
type List struct {
	evs      []event
	restarts int64
	last     event // the latest restart, which the explanation names
}

// Restart records a restart seen by src at t (Unix ns). One the other source saw within quiet
// is the same restart (the log's start-up line, then the counters at the next scrape).
func (l *List) Restart(t int64, src sample.Source, quiet int64) {
	if l.restarts > 0 {
		if d := t - l.last.Time.UnixNano(); l.last.src != src && d < quiet && d > -quiet {
			return
		}
	}
	code := schema.CodeRestartLogged
	switch src {
	case sample.SourceMetrics:
		code = schema.CodeRestartCounters
	case sample.SourceForwardPass:
		code = schema.CodeRestartPublisher
	}
	l.last = event{schema.Event{Kind: "restart", Time: time.Unix(0, t).UTC(), Evidence: schema.Ev(code)}, src}
	l.push(l.last)
	l.restarts++
}

// Add records an event of kind at t.
func (l *List) Add(kind string, t int64, ev schema.Evidence) {
	l.push(event{Event: schema.Event{Kind: kind, Time: time.Unix(0, t).UTC(), Evidence: ev}})
}

func (l *List) push(e event) {
	if len(l.evs) == Max {
		copy(l.evs, l.evs[1:])
		l.evs = l.evs[:Max-1]
	}
	l.evs = append(l.evs, e)
}

// Restarts is how many restarts were recorded, and the latest with how it was seen.
func (l *List) Restarts() (n int64, last time.Time, by schema.Code) {
	return l.restarts, l.last.Time, l.last.Evidence.Code
}

// Report copies the events for a report (the restart's code says its source).
func (l *List) Report() []schema.Event {
	var out []schema.Event
	for _, e := range l.evs {
		out = append(out, e.Event)
	}
	return out
}
