package model

import "time"

// A live series' silence is judged on the daemon's clock, by when its samples arrived, not by
// the stamps the engine wrote: an engine whose clock or time zone is off by hours looked
// expired the moment its samples arrived (3 h behind: no gauges at all), or never expired
// once stopped (3 h ahead) (issue 27, item 13). The difference between the two clocks is
// estimated (internal/logclock), exported and reported once, so that the operator sees it.

// ClockWarnAfter is the log clock offset reported once per series: far beyond any read delay,
// as a time-zone or clock error is.
const ClockWarnAfter = 5 * time.Minute

// Heard records that se's latest sample, stamped stamp (0: none), arrived at arrival (Unix ns,
// the daemon's clock) while following live, and reports true once per series: when its log
// clock is first estimated off by more than ClockWarnAfter. Warm-ups and the backlog read
// before the first catch-up are not heard: their samples are old and arrive now, and the
// stamps are their only clock.
func (m *Set) Heard(se *Series, stamp, arrival int64) (warn bool) {
	se.heard = max(se.heard, arrival)
	if stamp == 0 {
		return false
	}
	se.clock.Add(stamp, arrival)
	off, ok := se.clock.Offset()
	if !ok || se.clockWarned || off.Abs() <= ClockWarnAfter {
		return false
	}
	se.clockWarned = true
	return true
}

// heardMetrics records a sample of the engine's /metrics: it is stamped when it was scraped,
// on the daemon's clock, so its stamp is its arrival (the scrape source feeds no Heard).
func (se *Series) heardMetrics(t int64) { se.heard = max(se.heard, t) }

// lastHeard is the time expiry and stale detection compare with the daemon's clock: when the
// latest sample arrived, or its stamp where no arrival was recorded.
func (se *Series) lastHeard() int64 {
	if se.heard != 0 {
		return se.heard
	}
	return se.last
}

// ClockOffset is how far the series' log stamps run ahead of the daemon's clock (negative:
// behind), as estimated from the samples heard live (internal/logclock); ok is false until there is
// an estimate.
func (se *Series) ClockOffset() (d time.Duration, ok bool) { return se.clock.Offset() }

// logTime turns a time of the daemon's clock (Unix ns) into the series' log time, so that an
// episode Tick opens or ends sits among the series' stamped events (reports use log time).
func (se *Series) logTime(now int64) int64 {
	off, _ := se.clock.Offset()
	return now + int64(off)
}
