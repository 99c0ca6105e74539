package backend

import (
	"bytes"
	"strconv"
	"time"
)

// A journal cursor is "s=<seqnum id>;i=<seqnum, hex>;b=<boot id>;m=<monotonic>;t=<realtime µs,
// hex>;x=<xor hash>". The sequence number counts every entry journald wrote, of every unit, and
// keeps counting across rotations and restarts for as long as the seqnum id stays the same; so
// when a saved position was vacuumed, the distance between it and the next entry still there
// bounds what was lost. It is an upper bound on the lines of the followed units: the gap counts
// other units' entries too. Cursors are libsystemd's stable, documented text format
// (sd_journal_get_cursor(3) says to treat them as opaque; we only read them, and a cursor we
// cannot read just leaves the loss's size unknown).

// CursorPos is the part of a cursor that locates an entry in the writer's sequence.
type CursorPos struct {
	SeqnumID []byte
	Seqnum   uint64
	Realtime uint64 // µs since the epoch
}

// ParseCursor reads s=, i= and t= from c; ok is false when any is missing or malformed.
func ParseCursor(c []byte) (p CursorPos, ok bool) {
	var haveS, haveI, haveT bool
	for len(c) > 0 {
		field := c
		if i := bytes.IndexByte(c, ';'); i >= 0 {
			field, c = c[:i], c[i+1:]
		} else {
			c = nil
		}
		if len(field) < 2 || field[1] != '=' {
			continue
		}
		v := field[2:]
		switch field[0] {
		case 's':
			p.SeqnumID, haveS = v, len(v) > 0
		case 'i':
			n, err := strconv.ParseUint(string(v), 16, 64)
			p.Seqnum, haveI = n, err == nil
		case 't':
			n, err := strconv.ParseUint(string(v), 16, 64)
			p.Realtime, haveT = n, err == nil
		}
	}
	return p, haveS && haveI && haveT
}

// cursorGap is what lies between a vacuumed position and the next entry read.
type cursorGap struct {
	entries int64         // journal entries in between, of every unit; -1 when unknown
	span    time.Duration // time between the two entries; 0 when unknown
}

// gapBetween measures the gap from the cursor from (gone) to the cursor to (the next entry
// read). The count is unknown when the journal was recreated in between (another seqnum id),
// and the span when the clocks say to is earlier.
func gapBetween(from string, to []byte) cursorGap {
	a, okA := ParseCursor([]byte(from))
	b, okB := ParseCursor(to)
	g := cursorGap{entries: -1}
	if !okA || !okB {
		return g
	}
	if b.Realtime > a.Realtime {
		g.span = time.Duration(b.Realtime-a.Realtime) * time.Microsecond
	}
	if bytes.Equal(a.SeqnumID, b.SeqnumID) && b.Seqnum > a.Seqnum {
		g.entries = int64(b.Seqnum - a.Seqnum - 1)
	}
	return g
}

// describe says how large the gap is, for the operator's log.
func (g cursorGap) describe() string {
	if g.entries < 0 {
		return "an unknown number of journal entries (the journal was recreated)"
	}
	return "up to " + strconv.FormatInt(g.entries, 10) + " journal entries (of all units) over " + g.span.Round(time.Millisecond).String()
}
