package pipeline

import (
	"time"

	"github.com/specwatch/specwatch/model"
)

// arrivals reports whether the model is told when entries arrive (issue 27, item 13): only
// while following an input as it is written (run, the wall-clock demo), after the first
// catch-up. A warm-up, the backlog read at start-up and a replay on simulated time (the demo's
// tour) keep their stamps, the only clock their lines have.
func (p *Pipeline) arrivals() bool {
	return p.following && p.state.live && !p.warming && p.caughtUp
}

// arrival is when the entry being applied arrived: the pipeline's clock, the one its Ticks
// use (a source's Entry.Arrival is the same moment on the source's clock, read just before).
func (p *Pipeline) arrival() int64 { return p.now().UnixNano() }

// heard tells the model, live, when se's latest sample (stamped stamp, Unix ns) arrived, and
// logs once per series a log clock that is off; the caller holds the state's lock.
func (p *Pipeline) heard(se *model.Series, stamp int64) {
	if se == nil || !p.arrivals() {
		return
	}
	if !p.state.set.Heard(se, stamp, p.arrival()) {
		return
	}
	off, _ := se.ClockOffset()
	l := se.Labels()
	p.log.Warn().Str("host", l.Host).Str("unit", l.Unit).Str("container", l.Container).Str("rank", l.Rank).
		Dur("offset", off.Round(time.Second)).
		Msg("the engine's log timestamps are off from this host's clock (time zone, clock, or lines read late); expiry and stale detection use arrival times, see specwatch_log_clock_offset_seconds")
}
