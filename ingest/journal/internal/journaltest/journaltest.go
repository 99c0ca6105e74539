// Package journaltest holds what the journal packages' tests share: reading a source with
// deadlines, numbered lines and their checks, journal files built and damaged on purpose. It
// imports neither package journal nor a backend, so that each of them may use it in its tests.
package journaltest

import (
	"fmt"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
)

// Source is what the helpers read: a journal.Source, or a backend's own *Source.
type Source interface {
	Next(e *ingest.Entry, wait time.Duration) (bool, error)
	Close() error
	Stats() backend.Stats
}

// Opened fails the test on err, and closes src at its end.
func Opened[S Source](t *testing.T, src S, err error) Source {
	t.Helper()
	if err != nil {
		t.Fatalf("opening the journal: %v", err)
	}
	t.Cleanup(func() {
		if err := src.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return src
}

// Open opens a source with open and closes it at the end of the test; warnings go to the test
// log unless o has a Warn already.
func Open(t *testing.T, o backend.Options, open func(backend.Options) (Source, error)) Source {
	t.Helper()
	if o.Warn == nil {
		o.Warn = func(m string) { t.Logf("warn: %s", m) }
	}
	src, err := open(o)
	return Opened(t, src, err)
}

// Owned is an Entry copied out of the source's buffers, comparable with ==.
type Owned struct {
	Time                        int64
	Host, Unit, Message, Cursor string
	Container                   string
}

// Own copies e.
func Own(e *ingest.Entry) Owned {
	return Owned{e.Time, string(e.Host), string(e.Unit), string(e.Message), string(e.Cursor), string(e.Container)}
}

func (o Owned) String() string {
	return fmt.Sprintf("{t=%d host=%q unit=%q container=%q msg=%.200q cursor=%q}", o.Time, o.Host, o.Unit, o.Container, o.Message, o.Cursor)
}
