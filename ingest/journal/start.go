package journal

import "time"

// Start says where a Source begins reading: at the tail (only entries written after Open; the
// zero value), at the head (every entry there is), at a time, or after a saved cursor.
type Start struct {
	at     position
	since  time.Time
	cursor string
}

type position uint8

const (
	tail position = iota
	head
	since
)

// Tail starts after the newest entry: only entries written after Open are read.
func Tail() Start { return Start{} }

// Head starts at the oldest entry the journal holds.
func Head() Start { return Start{at: head} }

// Since starts at the first entry at or after t; a zero t is Tail.
func Since(t time.Time) Start {
	if t.IsZero() {
		return Tail()
	}
	return Start{at: since, since: t}
}

// AfterCursor resumes after the entry cursor names (from a CursorStore); "" is otherwise. When
// that entry is gone (vacuumed), reading continues at the first entry after where it was, and
// Stats.CursorMissing counts it: entries between may have been lost. A cursor that does not
// parse is counted the same way, and reading begins at otherwise.
func AfterCursor(cursor string, otherwise Start) Start {
	otherwise.cursor = cursor
	return otherwise
}

// String names the start for logs: "tail", "head", the time, or "after cursor …".
func (s Start) String() string {
	var where string
	switch s.at {
	case head:
		where = "head"
	case since:
		where = s.since.Format(time.RFC3339Nano)
	default:
		where = "tail"
	}
	if s.cursor != "" {
		return "after cursor " + s.cursor + " (else " + where + ")"
	}
	return where
}
