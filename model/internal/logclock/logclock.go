// Package logclock estimates how far an engine's log clock runs from the daemon's, from when
// its stamped lines arrived.
package logclock

import "time"

// Clock estimates how far a series' log stamps run ahead of the daemon's clock from the
// samples heard live. stamp − arrival is that offset minus the line's delay (the read delay,
// the engine's output buffering, the age of a backlog line read now), and no delay is negative:
// the largest value among recent arrivals is the least delayed line's, the estimate. It stands
// only once those arrivals span clockSpan: a backlog found later (a new file's old lines)
// arrives in one burst, and its newest line may be hours old with no clock wrong at all.
type Clock struct {
	cur, prev clockBucket // the current minute of arrivals and the one before it with any
	est       int64       // ns; valid when ok
	ok        bool
}

// clockBucket is up to clockBucketLen of arrivals.
type clockBucket struct {
	first, last int64 // arrivals, Unix ns; first == 0: empty
	max         int64 // the largest stamp − arrival
}

const (
	clockBucketLen = time.Minute
	clockSpan      = 30 * time.Second
)

// Add takes a sample stamped stamp that arrived at arrival (Unix ns).
func (c *Clock) Add(stamp, arrival int64) {
	d := stamp - arrival
	if c.cur.first == 0 || arrival-c.cur.first >= int64(clockBucketLen) {
		if c.cur.first != 0 {
			c.prev = c.cur
		}
		c.cur = clockBucket{first: arrival, last: arrival, max: d}
	} else {
		c.cur.last, c.cur.max = max(c.cur.last, arrival), max(c.cur.max, d)
	}
	first, est := c.cur.first, c.cur.max
	if c.prev.first != 0 {
		first, est = c.prev.first, max(est, c.prev.max)
	}
	if c.cur.last-first >= int64(clockSpan) {
		c.est, c.ok = est, true
	}
}

// Offset is the latest estimate; ok is false until there is one.
func (c *Clock) Offset() (time.Duration, bool) { return time.Duration(c.est), c.ok }
