//go:build cgo && linux

package sdjournal

import (
	"fmt"
	"time"

	"github.com/specwatch/specwatch/ingest/journal/backend"
)

// open opens a new handle on the owner's thread, with the matches.
func (s *Source) open() error {
	if err := s.own.open(s.o.Dir, s.o.Matches()); err != nil {
		return fmt.Errorf("ingest: opening %s: %w", s.o.Name(), err)
	}
	s.opened, s.waited, s.sinceOpen = true, false, 0
	s.batch.reset()
	return nil
}

// seek positions a fresh handle: after the last entry returned; or, before any, at the saved
// cursor, at the head, at Since, or at the tail (initial) or OpenJournal's time (a reopen).
func (s *Source) seek(initial bool) error {
	if s.Last != nil {
		s.Resume = backend.ResumePoint{Cursor: string(s.Last)}
		return s.own.seekCursor(string(s.Last))
	}
	if c := s.o.Cursor; c != "" {
		if err := s.own.seekCursor(c); err == nil {
			s.Resume = backend.ResumePoint{Cursor: c, FromStore: true}
			return nil
		}
		s.o.InvalidCursor(&s.stats)
	}
	switch {
	case s.o.Head:
		return s.own.seekHead()
	case !s.o.Since.IsZero():
		return s.own.seekRealtime(uint64(s.o.Since.UnixMicro()))
	case !initial:
		return s.own.seekRealtime(s.startUsec)
	}
	// The tail: land on the last matching entry so that the next Next returns the first new
	// one. SeekTail alone is not enough: on systemd < 254 Next after SeekTail returns the
	// last entry of one file (and skips earlier new ones), on ≥ 254 nothing (systemd PR
	// #26577). With no matching entry at all Previous stays put; then everything to come is
	// new, and the head is the safe place to wait.
	if err := s.own.seekTail(); err != nil {
		return err
	}
	moved, err := s.own.previous()
	if err != nil {
		return err
	}
	if !moved {
		return s.own.seekHead()
	}
	return nil
}

// fail closes the handle after err; Next reopens it when the backoff allows.
func (s *Source) fail(err error) error {
	s.closeHandle()
	s.o.Warnf("%s: %v; reopening and continuing after the last entry read", s.o.Name(), err)
	return s.Retry.Failed(fmt.Errorf("%s: %w", s.o.Name(), err), time.Now())
}

// reopen replaces a handle closed after an error, positioned after the last entry returned.
func (s *Source) reopen() error {
	if err := s.openAtLast("reopening"); err != nil {
		return err
	}
	s.stats.Reopens++
	s.scanFiles()
	return nil
}

// recycle replaces a working handle (recycleAfter) the same way; the resume protocol skips the
// last entry again.
func (s *Source) recycle() error {
	s.closeHandle()
	if err := s.openAtLast("recycling the handle"); err != nil {
		return err
	}
	s.stats.Recycles++
	return nil
}

// openAtLast opens a new handle and positions it for reading on after the last entry returned
// (or where a first open would start, before any).
func (s *Source) openAtLast(why string) error {
	if err := s.open(); err != nil {
		return err
	}
	if err := s.seek(false); err != nil {
		s.closeHandle()
		return fmt.Errorf("ingest: positioning in %s after %s: %w", s.o.Name(), why, err)
	}
	return nil
}

func (s *Source) closeHandle() {
	if s.opened {
		s.own.closeJournal()
		s.opened = false
	}
}

func (s *Source) scanFiles() {
	for _, msg := range s.files.Scan(time.Now()) {
		s.stats.BadFiles++
		s.o.Warnf("%s", msg)
	}
}
