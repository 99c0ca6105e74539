package logclock

import (
	"testing"
	"time"
)

const sec = int64(time.Second)

// TestOffsetStandsAfterSpan: an engine 3 h behind, a line a second read within up to 400 ms:
// no estimate before the arrivals span 30 s, then the least delayed line's offset.
func TestOffsetStandsAfterSpan(t *testing.T) {
	var c Clock
	t0 := int64(1_795_000_000) * sec
	off := -3 * int64(time.Hour)
	for i := int64(0); i <= 40; i++ {
		delay := (i % 5) * 100 * int64(time.Millisecond)
		arrival := t0 + i*sec
		c.Add(arrival+off-delay, arrival)
		got, ok := c.Offset()
		if i < 30 && ok {
			t.Fatalf("line %d: an estimate (%v) before the arrivals span 30 s", i, got)
		}
		if i >= 30 && (!ok || got != time.Duration(off)) {
			t.Fatalf("line %d: offset %v %v, want %v", i, got, ok, time.Duration(off))
		}
	}
}

// TestBacklogIsNoOffset: a backlog read in one burst (old lines arriving within a second) gives
// no estimate, however old its stamps.
func TestBacklogIsNoOffset(t *testing.T) {
	var c Clock
	now := int64(1_795_000_000) * sec
	for i := int64(0); i < 300; i++ {
		c.Add(now-48*int64(time.Hour)+i*sec, now+i*int64(time.Millisecond))
	}
	if off, ok := c.Offset(); ok {
		t.Fatalf("a burst of old lines gave an offset of %v", off)
	}
}

// TestOffsetFollowsAChange: the estimate is the largest offset of the current and previous
// minute of arrivals, so a clock corrected (stepped back by an hour) is followed within two
// minutes, not held at its old value forever.
func TestOffsetFollowsAChange(t *testing.T) {
	var c Clock
	t0 := int64(1_795_000_000) * sec
	for i := int64(0); i < 300; i++ {
		off := int64(0)
		if i >= 120 {
			off = -int64(time.Hour)
		}
		c.Add(t0+i*sec+off, t0+i*sec)
	}
	if off, ok := c.Offset(); !ok || off != -time.Hour {
		t.Fatalf("offset %v %v, want -1h three minutes after the change", off, ok)
	}
}
