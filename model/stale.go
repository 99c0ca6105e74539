package model

import "github.com/specwatch/specwatch/model/schema"

// Stale detection is live-only: a series that stopped producing samples while its unit keeps
// logging means the engine stopped printing statistics (a hang in the scheduler, a log level
// change), which no offline report can tell from "the service was idle".

// Seen records that host/unit/container logged an entry stamped t (Unix ns): the unit's
// activity where no arrival is known (a warm-up, the backlog before the first catch-up). Call
// it, or Arrived, for every entry in live mode; it allocates only the first time a source is
// seen. The container is part of the source: docker.service keeps logging for the host's other
// containers after one engine's container has gone, and that is not "the engine stopped
// printing statistics".
func (m *Set) Seen(host, unit, container []byte, t int64) { m.seen(host, unit, container, t, 0) }

// Arrived records that host/unit/container logged an entry that arrived at t (Unix ns, the
// daemon's clock, as Tick's now): once a unit has an arrival, its stamps no longer count, so
// an engine's clock that is off cannot make its unit look silent or active (heard.go).
func (m *Set) Arrived(host, unit, container []byte, t int64) { m.seen(host, unit, container, 0, t) }

func (m *Set) seen(host, unit, container []byte, stamp, arrival int64) {
	m.units.Seen(host, unit, container, stamp, arrival)
}

// unitLast is when se's unit last logged, on the clock lastHeard uses: the arrival where one
// was recorded, else the stamp (0: never seen).
func (m *Set) unitLast(se *Series) int64 {
	return m.units.Last(se.labels.Host, se.labels.Unit, se.labels.Container)
}

// Tick raises stale for series silent for StaleAfter while their unit logged within the last
// StaleAfter, and clears it when samples resume (clearing also happens on the next sample);
// first it decides which series expired (expire.go): a gone one is not stale. Silence is on
// the daemon's clock (when samples and entries arrived, heard.go); the episode is dated in the
// series' log time, as its other events are.
func (m *Set) Tick(now int64) {
	m.expire(now)
	after := int64(m.opts.StaleAfter)
	for _, se := range m.order {
		if se.samples == 0 {
			continue
		}
		o := se.at(obsTick, se.logTime(now))
		o.now, o.unitLast, o.after = now, m.unitLast(se), after
		se.feed(Stale, o)
	}
}

// staleDetector is stale: the series is silent for StaleAfter on the daemon's clock while its
// unit logged within the last StaleAfter; it ends when a sample arrives, or with the series'
// expiry (expire.go).
type staleDetector struct{}

func (staleDetector) observe(se *Series, o *obs) {
	if o.what == obsSample {
		se.clear(Stale, o.t)
		return
	}
	heard := se.lastHeard()
	silent := o.now-heard > o.after
	switch {
	case silent && !se.expiry.gone && o.unitLast > heard+o.after/2 && o.now-o.unitLast < o.after:
		ev := schema.Ev(schema.CodeStale, float64(o.now-heard))
		ev.T[0] = se.last
		se.raise(Stale, o.t, ev)
	case !silent:
		se.clear(Stale, o.t)
	}
}

func (staleDetector) clear()                 {} // it keeps no evidence: the clocks are the series' and the unit's
func (staleDetector) reconfigure(o *Options) {} // StaleAfter is read at each tick
