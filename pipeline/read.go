package pipeline

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal"
)

// Reader is an input read once to its end: a file, stdin, a decompressed stream
// (ingest.Reader). Next fills e, whose slices stay valid until the next call, and returns
// io.EOF at the end; records it could not decode are counted in Stats().Bad, never returned.
type Reader interface {
	Next(e *ingest.Entry) error
	Stats() ingest.Stats
}

// ReadAll applies every entry of r, then counts what r could not decode. name is for errors.
func (p *Pipeline) ReadAll(r Reader, name string) error {
	defer func() { p.state.CountUnreadable(r.Stats().Bad) }()
	for {
		err := r.Next(&p.entry)
		if errors.Is(err, io.EOF) {
			p.EndInput()
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", name, err)
		}
		p.Apply(&p.entry)
	}
}

// CountingJournal is a journal read without following: it counts the entries it could not read.
type CountingJournal interface {
	ingest.Poller
	Stats() journal.Stats
}

// ReadJournal applies a journal read without following (its Next returns io.EOF at the end
// of what the journal holds), then counts the entries it could not read.
func (p *Pipeline) ReadJournal(src CountingJournal, name string) error {
	for {
		ok, err := src.Next(&p.entry, time.Second)
		if errors.Is(err, io.EOF) {
			p.EndInput()
			p.state.CountUnreadable(src.Stats().Unreadable)
			return nil
		}
		if err != nil {
			return fmt.Errorf("journal %s: %w", name, err)
		}
		if ok {
			p.Apply(&p.entry)
		}
	}
}
