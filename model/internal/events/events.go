// Package events keeps the latest events of a series' life that are not anomalies: restarts,
// and speculation switched on or off with the batch size (model/internal/specoff).
package events

import (
	"time"

	"github.com/specwatch/specwatch/sample"
)

// Max bounds the events a series keeps (the latest ones).
const Max = 32

// Event is one event; its JSON is the report's series[].events[].
type Event struct {
	Kind   string    `json:"kind"`
	Time   time.Time `json:"time"`
	Detail string    `json:"detail"`
	src    sample.Source
}

// List is a series' events, oldest first, and its count of restarts.
type List struct {
	evs      []Event
	restarts int64
	last     Event // the latest restart, which the explanation names
}

// Restart records a restart seen by src at t (Unix ns). One the other source saw within quiet
// is the same restart (the log's start-up line, then the counters at the next scrape).
func (l *List) Restart(t int64, src sample.Source, quiet int64) {
	if l.restarts > 0 {
		if d := t - l.last.Time.UnixNano(); l.last.src != src && d < quiet && d > -quiet {
			return
		}
	}
	detail := "the engine's counters went back: it restarted (or its counters were cleared); the interval across it is not counted"
	if src != sample.SourceMetrics {
		detail = "the engine logged its start-up line: it (re)started"
	}
	l.last = Event{Kind: "restart", Time: time.Unix(0, t).UTC(), Detail: detail, src: src}
	l.push(l.last)
	l.restarts++
}

// Add records an event of kind at t.
func (l *List) Add(kind string, t int64, detail string) {
	l.push(Event{Kind: kind, Time: time.Unix(0, t).UTC(), Detail: detail})
}

func (l *List) push(e Event) {
	if len(l.evs) == Max {
		copy(l.evs, l.evs[1:])
		l.evs = l.evs[:Max-1]
	}
	l.evs = append(l.evs, e)
}

// Restarts is how many restarts were recorded, and the latest with whether its log said so.
func (l *List) Restarts() (n int64, last time.Time, logged bool) {
	return l.restarts, l.last.Time, l.last.src != sample.SourceMetrics
}

// Report copies the events for a report (the source is said in Detail).
func (l *List) Report() []Event {
	out := append([]Event(nil), l.evs...)
	for i := range out {
		out[i].src = 0
	}
	return out
}
