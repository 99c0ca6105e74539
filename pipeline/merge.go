package pipeline

import (
	"time"

	"github.com/specwatch/specwatch/ingest"
)

// UnreadableCounter is a source that skips records it cannot decode (files in a container
// format); the live loop adds what it skipped to the report's unreadable count every second.
// TakeUnreadable returns the count since its last call.
type UnreadableCounter interface {
	TakeUnreadable() int64
}

// mergeWait bounds the journal's wait in a merged source, so that file lines are not held up
// behind an idle journal for longer than this.
const mergeWait = 50 * time.Millisecond

// Merge feeds one loop from the journal and the followed files: Follow takes one source and
// one cursor sink, and two loops would need two pipelines on one model. The files are asked
// first without waiting, then the journal waits a bounded time. Each entry's cursor is marked
// in the sink of the source it came from. Lifecycle: as its sources'; the caller closes them.
func Merge(files Journal, fileSink CursorSink, j Journal, journalSink CursorSink) (Journal, CursorSink) {
	m := &merged{files: files, j: j, fileSink: fileSink, journalSink: journalSink}
	return m, m
}

type merged struct {
	files                 Journal
	j                     Journal
	fileSink, journalSink CursorSink
	fromFiles             bool // where the entry last returned came from
	run                   int  // file entries in a row
}

func (m *merged) Next(e *ingest.Entry, wait time.Duration) (bool, error) {
	// A backlog of file lines (a first read of large files) must not hold the journal up:
	// after a run of file entries the journal gets a turn without waiting.
	if m.run >= mergeRun {
		m.run = 0
		if ok, err := m.j.Next(e, 0); ok || err != nil {
			m.fromFiles = false
			return ok, err
		}
	}
	if ok, err := m.files.Next(e, 0); ok || err != nil {
		m.fromFiles = true
		m.run++
		return ok, err
	}
	m.fromFiles, m.run = false, 0
	return m.j.Next(e, min(wait, mergeWait))
}

// mergeRun is how many file entries in a row a merged source returns before asking the journal.
const mergeRun = 64

func (m *merged) TakeUnreadable() int64 {
	if u, ok := m.files.(UnreadableCounter); ok {
		return u.TakeUnreadable()
	}
	return 0
}

func (m *merged) Mark(cursor []byte) {
	if m.fromFiles {
		m.fileSink.Mark(cursor)
	} else {
		m.journalSink.Mark(cursor)
	}
}

func (m *merged) Flush() error {
	err := m.fileSink.Flush()
	if jerr := m.journalSink.Flush(); jerr != nil {
		err = jerr
	}
	return err
}
