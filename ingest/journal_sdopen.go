//go:build cgo && linux

package ingest

import (
	"fmt"
	"time"
)

// open opens a new handle on the owner thread, with the matches.
func (s *sdSource) open() error {
	if err := s.own.open(s.o.Dir, s.o.matches()); err != nil {
		return fmt.Errorf("ingest: opening %s: %w", s.o.name(), err)
	}
	s.opened, s.waited, s.sinceOpen = true, false, 0
	s.batch.reset()
	return nil
}

// seek positions a fresh handle: after the last entry returned; or, before any, at the saved
// cursor, at Since, or at the tail (initial) or OpenJournal's time (a reopen).
func (s *sdSource) seek(initial bool) error {
	if s.last != nil {
		s.resume = resumePoint{cursor: string(s.last)}
		return s.own.seekCursor(string(s.last))
	}
	if c := s.o.Cursor; c != "" {
		if err := s.own.seekCursor(c); err == nil {
			s.resume = resumePoint{cursor: c, fromStore: true}
			return nil
		}
		s.o.invalidCursor(&s.stats)
	}
	switch {
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
func (s *sdSource) fail(err error) error {
	s.closeHandle()
	s.o.warn("%s: %v; reopening and continuing after the last entry read", s.o.name(), err)
	return s.retry.failed(fmt.Errorf("%s: %w", s.o.name(), err), time.Now())
}

// reopen replaces a handle closed after an error, positioned after the last entry returned.
func (s *sdSource) reopen() error {
	if err := s.openAtLast("reopening"); err != nil {
		return err
	}
	s.stats.Reopens++
	s.scanFiles()
	return nil
}

// recycle replaces a working handle (recycleAfter) the same way; the resume protocol skips the
// last entry again.
func (s *sdSource) recycle() error {
	s.closeHandle()
	if err := s.openAtLast("recycling the handle"); err != nil {
		return err
	}
	s.stats.Recycles++
	return nil
}

// openAtLast opens a new handle and positions it for reading on after the last entry returned
// (or where a first open would start, before any).
func (s *sdSource) openAtLast(why string) error {
	if err := s.open(); err != nil {
		return err
	}
	if err := s.seek(false); err != nil {
		s.closeHandle()
		return fmt.Errorf("ingest: positioning in %s after %s: %w", s.o.name(), why, err)
	}
	return nil
}

func (s *sdSource) closeHandle() {
	s.settle()
	if s.opened {
		s.own.closeJournal()
		s.opened = false
	}
}

func (s *sdSource) scanFiles() {
	for _, msg := range s.files.scan(time.Now()) {
		s.stats.BadFiles++
		s.o.warn("%s", msg)
	}
}
