//go:build cgo && linux

package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"github.com/coreos/go-systemd/v22/sdjournal"
)

// sdSource reads the journal in process with libsystemd's sd-journal, through go-systemd's
// raw Journal for opening, matching, seeking and waiting, and a one-call C read path per
// entry (journal_sdread.go).
//
// Following: when Next finds no entry it blocks in sd_journal_wait (inotify) for at most the
// caller's wait; there is no polling loop. SD_JOURNAL_INVALIDATE (files added or removed:
// rotation, vacuuming, a journald restart) needs nothing but reading on: sd-journal keeps its
// position as a location (seqnum, boot, monotonic and realtime stamps), not as a file offset.
//
// Errors: when moving to the next entry or waiting fails (EBADMSG, EIO, EADDRNOTAVAIL from a
// damaged file), the handle is closed and reopened after a backoff, seeking to the last
// cursor returned; the saved entry is then skipped if it still exists, and counted as
// CursorMissing if not. An entry whose fields cannot be read triggers the same reopen once;
// failing again at the same place, it is skipped and counted Unreadable.
type sdSource struct {
	o         JournalOptions
	j         *sdjournal.Journal
	raw       unsafe.Pointer // the sd_journal inside j for the C read path; nil: go-systemd getters
	noFast    bool           // never use the C read path (tests, benchmarks)
	tid       int            // the OS thread that owns the handle
	buf, sbuf []byte         // entry storage of the fast and the slow path
	last      []byte         // cursor of the last entry returned (or skipped as already applied)
	resume    resumePoint
	startUsec uint64 // OpenJournal's time: where "the tail" resumes if reopened before any entry
	retry     retry
	badAt     []byte // s.last when a field read failed; a second failure there skips the entry
	fatal     error  // sticky: recovery gave up
	waited    bool   // sd_journal_wait was called on this handle
	files     *fileChecker
	stats     JournalStats
	closed    bool
}

func sdJournalAvailable() error { return sdLibError() }

// openSDJournal locks the calling goroutine to its thread until Close: sd-journal objects
// may only be used from the thread that created them (sd-journal(3)).
func openSDJournal(o JournalOptions) (JournalSource, error) {
	if err := sdLibError(); err != nil {
		return nil, fmt.Errorf("ingest: sdjournal backend: %w", err)
	}
	runtime.LockOSThread()
	s := &sdSource{o: o, tid: syscall.Gettid(), buf: make([]byte, 64<<10), files: newFileChecker(o.Dir)}
	s.stats.Backend = BackendSDJournal
	s.startUsec = uint64(time.Now().UnixMicro())
	if err := s.open(); err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	if err := s.seek(true); err != nil {
		s.closeHandle()
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("ingest: positioning in %s: %w", o.name(), err)
	}
	s.scanFiles()
	return s, nil
}

// open opens a new handle with the matches and no size limit on returned fields (a data
// threshold of 0 means unlimited; the default 64 KiB would cut long messages).
func (s *sdSource) open() error {
	var j *sdjournal.Journal
	var err error
	if s.o.Dir != "" {
		j, err = sdjournal.NewJournalFromDir(s.o.Dir)
	} else {
		j, err = sdjournal.NewJournal()
	}
	if err != nil {
		return fmt.Errorf("ingest: opening %s: %w", s.o.name(), err)
	}
	if err = j.SetDataThreshold(0); err == nil {
		for _, m := range s.o.matches() {
			if m == "+" {
				err = j.AddDisjunction()
			} else {
				err = j.AddMatch(m)
			}
			if err != nil {
				err = fmt.Errorf("match %s: %w", m, err)
				break
			}
		}
	}
	if err != nil {
		j.Close()
		return fmt.Errorf("ingest: opening %s: %w", s.o.name(), err)
	}
	s.j, s.waited = j, false
	s.raw = nil
	if !s.noFast {
		s.raw = rawHandle(j)
	}
	return nil
}

// seek positions a fresh handle: after the last entry returned; or, before any, at the saved
// cursor, at Since, or at the tail (initial) or OpenJournal's time (a reopen).
func (s *sdSource) seek(initial bool) error {
	if s.last != nil {
		s.resume = resumePoint{cursor: string(s.last)}
		return s.j.SeekCursor(string(s.last))
	}
	if c := s.o.Cursor; c != "" {
		if err := s.j.SeekCursor(c); err == nil {
			s.resume = resumePoint{cursor: c, fromStore: true}
			return nil
		}
		s.stats.CursorMissing++
		s.o.warn("%s: saved cursor %q is not a valid journal cursor; starting from %s instead", s.o.name(), c, s.startName())
		s.o.Cursor = ""
	}
	switch {
	case !s.o.Since.IsZero():
		return s.j.SeekRealtimeUsec(uint64(s.o.Since.UnixMicro()))
	case !initial:
		return s.j.SeekRealtimeUsec(s.startUsec)
	}
	// The tail: land on the last matching entry so that the next Next returns the first new
	// one. SeekTail alone is not enough: on systemd < 254 Next after SeekTail returns the
	// last entry of one file (and skips earlier new ones), on ≥ 254 nothing (systemd PR
	// #26577). With no matching entry at all Previous stays put; then everything to come is
	// new, and the head is the safe place to wait.
	if err := s.j.SeekTail(); err != nil {
		return err
	}
	n, err := s.j.Previous()
	if err != nil {
		return err
	}
	if n == 0 {
		return s.j.SeekHead()
	}
	return nil
}

func (s *sdSource) startName() string {
	if !s.o.Since.IsZero() {
		return s.o.Since.Format(time.RFC3339Nano)
	}
	return "the tail"
}

// Next implements JournalSource.
func (s *sdSource) Next(e *Entry, wait time.Duration) (bool, error) {
	switch {
	case s.closed:
		return false, ErrJournalClosed
	case s.fatal != nil:
		return false, s.fatal
	}
	var deadline time.Time // set when first needed: reading an available entry needs no clock
	for {
		if s.j == nil {
			if deadline.IsZero() {
				deadline = time.Now().Add(wait)
			}
			if !s.retry.due(deadline) {
				return false, nil
			}
			if err := s.reopen(); err != nil {
				if s.fatal = s.retry.failed(err, time.Now()); s.fatal != nil {
					return false, s.fatal
				}
				continue
			}
		}
		ok, err := s.step(e)
		if err != nil {
			if s.fatal = s.fail(err); s.fatal != nil {
				return false, s.fatal
			}
			continue
		}
		if ok {
			return true, nil
		}
		now := time.Now()
		if deadline.IsZero() {
			deadline = now.Add(wait)
		}
		if s.files.due(now) {
			s.scanFiles()
		}
		rem := deadline.Sub(now)
		if rem <= 0 {
			return false, nil
		}
		if tid := syscall.Gettid(); tid != s.tid {
			s.fatal = fmt.Errorf("ingest: %s: JournalSource used from OS thread %d, opened on %d: call OpenJournal, Next and Close from one goroutine", s.o.name(), tid, s.tid)
			return false, s.fatal
		}
		s.stats.Waits++
		first := !s.waited
		s.waited = true
		switch r := s.j.Wait(rem); {
		case r == sdjournal.SD_JOURNAL_INVALIDATE && first:
			// The first wait on a handle sets up inotify, returns at once and reports
			// INVALIDATE for the files found at open: not a change.
		case r == sdjournal.SD_JOURNAL_INVALIDATE:
			s.stats.Invalidations++
			s.scanFiles()
		case r < 0:
			if s.fatal = s.fail(fmt.Errorf("waiting for changes: %w", syscall.Errno(-r))); s.fatal != nil {
				return false, s.fatal
			}
		}
	}
}

// step returns the next entry not returned before, or false at the end of the journal.
func (s *sdSource) step(e *Entry) (bool, error) {
	for {
		var ok bool
		var err error
		if s.raw != nil {
			ok, err = s.readFast(e, true)
		} else {
			ok, err = s.readSlow(e, true)
		}
		if errors.Is(err, errFieldRead) && s.badAt != nil && bytes.Equal(s.badAt, s.last) {
			// Failed at the same place after a reopen: the entry itself is damaged.
			s.stats.Unreadable++
			s.o.warn("%s: skipping an unreadable entry after cursor %s: %v", s.o.name(), s.last, err)
			s.badAt = nil
			continue
		}
		if errors.Is(err, errFieldRead) {
			s.badAt = append([]byte{}, s.last...) // non-nil even before the first entry
		}
		if err != nil || !ok {
			return false, err
		}
		if s.resume.pending() {
			if s.resume.first(s.j.TestCursor(s.resume.cursor) == nil, &s.o, &s.stats) {
				s.last = append(s.last[:0], e.Cursor...)
				continue
			}
		} else if bytes.Equal(e.Cursor, s.last) {
			s.stats.Duplicates++
			continue
		}
		s.last = append(s.last[:0], e.Cursor...)
		s.stats.Entries++
		s.retry.progressed()
		return true, nil
	}
}

// fail closes the handle after err; Next reopens it when the backoff allows.
func (s *sdSource) fail(err error) error {
	s.closeHandle()
	s.o.warn("%s: %v; reopening and continuing after the last entry read", s.o.name(), err)
	return s.retry.failed(fmt.Errorf("%s: %w", s.o.name(), err), time.Now())
}

func (s *sdSource) reopen() error {
	if err := s.open(); err != nil {
		return err
	}
	if err := s.seek(false); err != nil {
		s.closeHandle()
		return fmt.Errorf("ingest: positioning in %s after reopening: %w", s.o.name(), err)
	}
	s.stats.Reopens++
	s.scanFiles()
	return nil
}

func (s *sdSource) closeHandle() {
	if s.j != nil {
		s.j.Close()
		s.j, s.raw = nil, nil
	}
}

func (s *sdSource) scanFiles() {
	for _, msg := range s.files.scan(time.Now()) {
		s.stats.BadFiles++
		s.o.warn("%s", msg)
	}
}

// Close implements JournalSource; it must run on the goroutine that opened the source.
func (s *sdSource) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.closeHandle()
	if tid := syscall.Gettid(); tid != s.tid {
		return fmt.Errorf("ingest: %s: closed from OS thread %d, opened on %d: the opening goroutine stays locked to its thread", s.o.name(), tid, s.tid)
	}
	runtime.UnlockOSThread()
	return nil
}

// Stats implements JournalSource.
func (s *sdSource) Stats() JournalStats { return s.stats }
