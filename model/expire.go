package model

// Expiry is what happens to a series whose source went quiet or away (a unit stopped, a
// container removed, a scrape target down), decided by Tick on the injected clock (live only):
//
//   - quiet: no sample for ExpireAfter. Its figures (commit length, tok/s, step, context, the
//     fit's prediction, forecast, attribution) describe a past that no longer runs, so the
//     exporter leaves them out and fleet sums lose them; the counters stay.
//   - gone: quiet, and its unit has logged nothing for ExpireAfter either. Nothing is left to
//     alert on: the anomaly gauges and the last-sample stamp go too, and an open stale episode
//     ends (stale means "silent while the unit keeps logging").
//
// A series silent while its unit keeps logging is quiet but not gone: its stale anomaly, and
// the last-sample stamp the alert quotes, stay exported. A new sample undoes both at once.
type expiry struct {
	samples     int64 // the series' samples when Tick decided: a newer sample voids the decision
	quiet, gone bool
}

// expire decides quiet and gone for every series at now (Unix ns); Tick calls it.
func (m *Set) expire(now int64) {
	after := int64(m.opts.ExpireAfter)
	if after <= 0 {
		return
	}
	for _, se := range m.order {
		if se.samples == 0 || !se.timed || now-se.lastHeard() < after {
			se.expiry = expiry{}
			continue
		}
		gone := now-m.unitLast(se) >= after
		se.expiry = expiry{samples: se.samples, quiet: true, gone: gone}
		if gone {
			se.clear(Stale, se.logTime(now))
		}
	}
}

// expired reports the series' expiry as of its latest sample.
func (se *Series) expired() (quiet, gone bool) {
	if se.expiry.samples != se.samples {
		return false, false
	}
	return se.expiry.quiet, se.expiry.gone
}
