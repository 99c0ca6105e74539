package pipeline

import (
	"time"

	"github.com/specwatch/specwatch/model"
)

// clockWarnAfter is the offset between an engine's log stamps and the daemon's clock that is
// reported: far beyond a read delay, as a time-zone or clock error is (issue 27, item 13).
const clockWarnAfter = 5 * time.Minute

// heard records, live, when se's latest sample (stamped stamp, Unix ns) arrived, and reports
// once per series a log clock that is off; the caller holds the state's lock.
func (p *Pipeline) heard(se *model.Series, stamp int64) {
	if se == nil || !p.following || p.warming || !p.caughtUp || stamp == 0 {
		return // a backlog read at start-up is old and arrives now: its stamps are the truth
	}
	p.state.set.Heard(se, stamp, p.now().UnixNano())
	off, _ := se.ClockOffset()
	if off.Abs() < clockWarnAfter {
		return
	}
	id := se.ID()
	for len(p.clockWarned) <= id {
		p.clockWarned = append(p.clockWarned, false)
	}
	if p.clockWarned[id] {
		return
	}
	p.clockWarned[id] = true
	l := se.Labels()
	p.log.Warn().Str("host", l.Host).Str("unit", l.Unit).Str("rank", l.Rank).Dur("offset", off.Round(time.Second)).
		Msg("the engine's log timestamps are off from this host's clock (time zone or clock); expiry and stale detection use arrival times, see specwatch_log_clock_offset_seconds")
}
