package model

import "time"

// Stale detection is live-only: a series that stopped producing samples while its unit keeps
// logging means the engine stopped printing statistics (a hang in the scheduler, a log level
// change), which no offline report can tell from "the service was idle".

// Seen records that host/unit/container logged an entry at t (Unix ns). Call it for every
// entry in live mode; it allocates only the first time a source is seen. The container is part
// of the source: docker.service keeps logging for the host's other containers after one engine's
// container has gone, and that is not "the engine stopped printing statistics".
func (m *Set) Seen(host, unit, container []byte, t int64) {
	if m.units == nil {
		m.units = make(map[string]int64)
	}
	m.ukey = append(append(append(append(append(m.ukey[:0], host...), 0), unit...), 0), container...)
	if v, ok := m.units[string(m.ukey)]; ok { // lookups by string(bytes) do not allocate
		if t > v {
			m.units[string(m.ukey)] = t
		}
		return
	}
	if len(m.units) < 4*m.opts.MaxSeries {
		m.units[string(m.ukey)] = t
	}
}

// Tick raises stale for series silent for StaleAfter while their unit logged within the last
// StaleAfter, and clears it when samples resume (clearing also happens on the next sample);
// first it decides which series expired (expire.go): a gone one is not stale.
func (m *Set) Tick(now int64) {
	m.expire(now)
	after := int64(m.opts.StaleAfter)
	for _, se := range m.order {
		if se.samples == 0 {
			continue
		}
		unitLast := m.units[se.labels.Host+"\x00"+se.labels.Unit+"\x00"+se.labels.Container]
		silent := now-se.lastHeard() > after
		switch {
		case silent && !se.expiry.gone && unitLast > se.lastHeard()+after/2 && now-unitLast < after:
			last, heard := se.last, se.lastHeard()
			se.raise(Stale, now, func() string {
				return sprintf("no statistics for %s while the unit keeps logging (last sample %s)",
					time.Duration(now-heard).Round(time.Second), time.Unix(0, last).UTC().Format(time.DateTime))
			})
		case !silent:
			se.clear(Stale, now)
		}
	}
}
