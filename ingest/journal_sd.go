//go:build cgo && linux

package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
// position as a location (seqnum, boot, monotonic and realtime stamps), not as a file offset;
// an entry equal to the last one returned is still skipped (Duplicates) as a safety net.
//
// Errors: when moving to the next entry or waiting fails (EBADMSG, EIO, EADDRNOTAVAIL from a
// damaged file), the handle is closed and reopened after a backoff, seeking to the last
// cursor returned; the saved entry is then skipped if it still exists, and counted as
// CursorMissing if not. An entry whose fields cannot be read triggers the same reopen once;
// failing again at the same place, it is skipped and counted Unreadable.
//
// Pitfalls found on the way (systemd 252, go-systemd v22.7.0):
//   - After SeekTail, Next returns the last entry of one file on systemd < 254 and nothing on
//     ≥ 254 (systemd PR #26577); when nothing matched yet, entries that then arrive together
//     are skipped but the last. Hence SeekTail + Previous, and SeekHead when Previous finds
//     nothing (seek). journalctl --lines=0 --follow has the same bug (journal_ctl.go).
//   - The first sd_journal_wait on a handle sets up inotify and returns at once, reporting
//     INVALIDATE for the files opened: not counted as an invalidation.
//   - Changes are announced with up to 250 ms latency (journald coalesces its inotify
//     notifications; systemd issue #17574): a follow sees new entries that late.
//   - EADDRNOTAVAIL means "not positioned on an entry" as well as corruption (promtail
//     issue #2104, systemd PR #27488): fields are read only after a Next that returned 1.
//   - sd-journal objects may be used by one thread only (sd-journal(3)); Go moves goroutines
//     between threads, hence LockOSThread from OpenJournal to Close, checked at each wait.
//   - The default data threshold (64 KiB) silently truncates fields: SetDataThreshold(0),
//     where 0 means no limit.
//   - go-systemd's GetDataBytes costs a C string, a lookup under a global mutex and a Go copy
//     per field, and GetData rescans the entry's items for every field: half the speed of
//     journalctl. The C read path enumerates the fields once per entry (BenchmarkJournalRead1M).
//   - sd_journal_get_cursor formats the cursor with asprintf: about 0.6 µs, a quarter of the
//     cost of an entry; the cursor is still read for every entry because Entry carries it.
//   - systemd 250–254 journald truncates a journal file when archiving it (systemd issue
//     #24320, fixed in 255 by punching holes instead); a reader without a SIGBUS handler
//     (rsyslog and syslog-ng crashed on 252) may then die of SIGBUS, which Go cannot recover
//     in C code. Not seen here in hundreds of rotations while reading (the reader only touches
//     objects below the new end), but if it happens the daemon restarts and resumes from its
//     cursor; journalctl installs a SIGBUS handler, so BackendJournalctl is immune.
//   - A truncated or foreign file in the directory is skipped by libsystemd without a word:
//     fileChecker reports it.
type sdSource struct {
	o         JournalOptions
	j         *sdjournal.Journal
	raw       unsafe.Pointer // the sd_journal inside j for the C read path; nil: go-systemd getters
	noFast    bool           // never use the C read path (tests, benchmarks)
	tid       int            // the OS thread that owns the handle
	buf, sbuf []byte         // entry storage of the fast and the slow path
	batch     sdBatch        // entries read ahead by the fast path
	progress
	startUsec uint64 // OpenJournal's time: where "the tail" resumes if reopened before any entry
	badAt     []byte // s.last when a field read failed; a second failure there skips the entry
	fatal     error  // sticky: recovery gave up
	waited    bool   // sd_journal_wait was called on this handle
	sinceOpen int    // entries returned from this handle: it is recycled after recycleAfter
	files     *fileChecker
	stats     JournalStats
	closed    bool
	// fault, set by tests only, may fail a read: before moving (advanced false, as if
	// sd_journal_next failed) or after (as if the entry's fields were unreadable).
	fault func(advanced bool) error
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

// recycleFollow and recycleBatch are how many entries a handle returns before it is closed and
// reopened at the last cursor. libsystemd maps journal files in 8 MiB windows and keeps up to 64
// of them, and every page read stays in the process's RSS while mapped: following a busy
// journal, the daemon's RSS grew by the journal's size up to that cache's 512 MiB (analyze of a
// 466k-entry unit peaked at 394 MB). A fresh handle drops the mappings. A reopen costs the
// files' headers and cold pages again, a few milliseconds: every 16k entries when following
// (bench live test: VmHWM 99 → 67 MB), every 256k in a batch read, where throughput matters more.
const (
	recycleFollow = 16384
	recycleBatch  = 1 << 18
)

// recycleAfter is how many entries a handle returns before recycle replaces it.
func (s *sdSource) recycleAfter() int {
	if s.o.NoFollow {
		return recycleBatch
	}
	return recycleFollow
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
	polled := false        // sd_journal_wait has run in this call
	for {
		if s.j != nil && s.sinceOpen >= s.recycleAfter() && s.last != nil {
			if err := s.recycle(); err != nil {
				if s.fatal = s.fail(err); s.fatal != nil {
					return false, s.fatal
				}
			}
		}
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
		if s.o.NoFollow {
			return false, io.EOF
		}
		now := time.Now()
		if deadline.IsZero() {
			deadline = now.Add(wait)
		}
		if s.files.due(now) {
			s.scanFiles()
		}
		rem := deadline.Sub(now)
		if rem <= 0 && polled {
			return false, nil
		}
		// Even with no time left, wait once with a zero timeout: sd_journal_wait is what
		// processes inotify events, and without it a caller that never blocks would never
		// see the files that rotation creates.
		rem, polled = max(rem, 0), true
		if tid := syscall.Gettid(); tid != s.tid {
			s.fatal = fmt.Errorf("ingest: %s: JournalSource used from OS thread %d, opened on %d: call OpenJournal, Next and Close from one goroutine", s.o.name(), tid, s.tid)
			return false, s.fatal
		}
		if rem > 0 {
			s.stats.Waits++
		}
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
		if s.fault != nil {
			err = s.fault(false)
		}
		if err == nil && s.raw != nil {
			ok, err = s.readFast(e)
		} else if err == nil {
			ok, err = s.readSlow(e, true)
		}
		if err == nil && ok && s.fault != nil {
			err = s.fault(true)
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
		same := s.resume.pending() && s.j.TestCursor(s.resume.cursor) == nil
		if s.admit(e.Cursor, same, &s.o, &s.stats) {
			s.sinceOpen++
			return true, nil
		}
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
