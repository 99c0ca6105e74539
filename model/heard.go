package model

import "time"

// A live series' silence is judged on the daemon's clock, by when its samples arrived, not by
// the stamps the engine wrote: an engine whose clock or time zone is off by hours looked
// expired the moment its samples arrived (3 h behind: no gauges at all), or never expired
// once stopped (3 h ahead) (issue 27, item 13). The difference between the two clocks is kept
// and exported, so that the operator sees it.

// Heard records that se's latest sample, stamped stamp, was applied at now (Unix ns, the
// daemon's clock) while following live. Warm-up replays do not call it: their samples are
// old and arrive now, and the stamps of the journal they come from are the truth.
func (m *Set) Heard(se *Series, stamp, now int64) {
	se.heard, se.offset = now, stamp-now
}

// lastHeard is the time expiry and stale detection compare with the daemon's clock: when the
// latest sample arrived, or its stamp where no arrival was recorded.
func (se *Series) lastHeard() int64 {
	if se.heard != 0 {
		return se.heard
	}
	return se.last
}

// ClockOffset is the latest live sample's stamp minus when it was applied: how far the
// engine's clock runs ahead of the daemon's (negative: behind), plus the read delay, which is
// under a second while specwatch keeps up. ok is false until a sample arrived live.
func (se *Series) ClockOffset() (d time.Duration, ok bool) {
	return time.Duration(se.offset), se.heard != 0
}
