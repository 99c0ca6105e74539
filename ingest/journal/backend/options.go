// Package backend is what the journal backends (native, sdjournal, journalctl) share, so that
// package journal can choose among them without their importing it: the options each is
// opened with, the counters each keeps, the resume protocol and its recovery pacing, cursor
// arithmetic, and the check for damaged journal files.
package backend

import (
	"errors"
	"fmt"
	"path"
	"time"
)

// Options are the parts of journal.Options every backend reads (see there for their meaning),
// with the start resolved: after Cursor when it is set and parses; otherwise at the head
// (Head), at Since, or at the tail (neither).
type Options struct {
	Dir         string
	Namespace   string
	Units       []string
	Identifiers []string
	Containers  []string
	Cursor      string
	Head        bool
	Since       time.Time
	NoFollow    bool
	Warn        func(msg string)
}

// ErrClosed is returned by a source's Next after Close.
var ErrClosed = errors.New("journal: source is closed")

// StartName says where a source starts when there is no cursor to resume from: the head,
// Since, or the tail.
func (o *Options) StartName() string {
	switch {
	case o.Head:
		return "the head"
	case !o.Since.IsZero():
		return o.Since.Format(time.RFC3339Nano)
	}
	return "the tail"
}

// InvalidCursor counts and reports a saved cursor that does not parse, and forgets it: the
// source starts from StartName instead.
func (o *Options) InvalidCursor(st *Stats) {
	st.CursorMissing++
	o.Warnf("%s: saved cursor %q is not a valid journal cursor; starting from %s instead", o.Name(), o.Cursor, o.StartName())
	o.Cursor = ""
}

// Name is how errors and warnings name the journal.
func (o *Options) Name() string {
	if o.Dir == "" {
		return "the system journal"
	}
	return "journal " + o.Dir
}

// Matches returns the journal matches for o: values of one field are ORed by the journal
// itself; "+" separates the Units group from the Identifiers group (OR).
func (o *Options) Matches() []string {
	var m []string
	for _, u := range o.Units {
		m = append(m, "_SYSTEMD_UNIT="+u)
	}
	if len(o.Units) > 0 && len(o.Identifiers) > 0 {
		m = append(m, "+")
	}
	for _, id := range o.Identifiers {
		m = append(m, "SYSLOG_IDENTIFIER="+id)
	}
	return m
}

// KeepContainer applies the Containers globs (path.Match patterns, validated by the caller)
// to an entry's container (record.Container): true when there are none or one matches. A glob
// cannot be a journal match, so every backend reads the entries the unit and identifier
// matches select and drops the others here, after reading.
func (o *Options) KeepContainer(container []byte) bool {
	if len(o.Containers) == 0 {
		return true
	}
	for _, g := range o.Containers {
		if ok, _ := path.Match(g, string(container)); ok {
			return true
		}
	}
	return false
}

// Warnf formats a warning for Warn, if set.
func (o *Options) Warnf(format string, args ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, args...))
	}
}
