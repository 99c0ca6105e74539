//go:build cgo && linux

package sdjournal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"syscall"
	"time"

	sdj "github.com/coreos/go-systemd/v22/sdjournal"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
)

// Source reads the journal in process with libsystemd's sd-journal, through go-systemd's
// sdjournal package. The handle lives on a goroutine locked to its thread (owner, owner.go)
// that runs every libsystemd call; this side keeps the logic: positioning, recovery, the
// resume protocol, recycling.
//
// Following: when Next finds no entry it has the owner block in sd_journal_wait (inotify) for
// at most the caller's wait and read what arrived, in one request; there is no polling loop
// here (the daemon's short waits while entries flow are its own choice).
// SD_JOURNAL_INVALIDATE (files added or removed: rotation, vacuuming, a journald restart)
// needs nothing but reading on: sd-journal keeps its position as a location (seqnum, boot,
// monotonic and realtime stamps), not as a file offset; an entry equal to the last one
// returned is still skipped (Duplicates) as a safety net.
//
// Errors: when moving to the next entry or waiting fails (EBADMSG, EIO, EADDRNOTAVAIL from a
// damaged file), the handle is closed and reopened after a backoff, seeking to the last
// cursor returned; the saved entry is then skipped if it still exists, and counted as
// CursorMissing if not. An entry whose fields cannot be read triggers the same reopen once;
// failing again at the same place, it is skipped and counted Unreadable. A journal that stays
// unreadable ends in an error after backend.RetryAttempts; package journal then goes on with
// another backend.
//
// Pitfalls found on the way (systemd 252):
//   - After SeekTail, Next returns the last entry of one file on systemd < 254 and nothing on
//     ≥ 254 (systemd PR #26577); when nothing matched yet, entries that then arrive together
//     are skipped but the last. Hence SeekTail + Previous, and SeekHead when Previous finds
//     nothing (seek). journalctl --lines=0 --follow has the same bug (package journalctl).
//   - The first sd_journal_wait on a handle sets up inotify and returns at once, reporting
//     INVALIDATE for the files opened: not counted as an invalidation.
//   - Changes are announced with up to 250 ms latency (journald coalesces its inotify
//     notifications; systemd issue #17574): a follow sees new entries that late.
//   - EADDRNOTAVAIL means "not positioned on an entry" as well as corruption (promtail
//     issue #2104, systemd PR #27488): fields are read only after a Next that returned 1.
//   - sd-journal objects may be used by one thread only (sd-journal(3)); go-systemd leaves
//     that to the caller, and Go moves goroutines between threads: hence the owner.
//   - The default data threshold (64 KiB) silently truncates fields: see dataThreshold.
//   - go-systemd's GetEntry keeps the last of a repeated field (a map); libsystemd's
//     sd_journal_get_data and journalctl the first. Entries are read with GetDataBytes.
//   - libsystemd maps journal files in 8 MiB windows and keeps up to 64 of them, and every
//     page read stays in the RSS while mapped: the handle is recycled (recycleAfter).
//   - systemd 250–254 journald truncates a journal file when archiving it (systemd issue
//     #24320, fixed in 255 by punching holes instead); a reader without a SIGBUS handler
//     (rsyslog and syslog-ng crashed on 252) may then die of SIGBUS, which Go cannot recover
//     in C code. Not seen here in hundreds of rotations while reading (the reader only touches
//     objects below the new end), but if it happens the daemon restarts and resumes from its
//     cursor; journalctl installs a SIGBUS handler, so the journalctl backend is immune.
//   - A truncated or foreign file in the directory is skipped by libsystemd without a word:
//     backend.FileChecker reports it.
type Source struct {
	o      backend.Options
	own    *owner // the goroutine, locked to its thread, that owns the handle
	opened bool   // a handle is open
	batch  batch  // entries read ahead
	same   bool   // the entry last served is the one the pending resume's cursor names
	backend.Progress
	startUsec uint64 // Open's time: where "the tail" resumes if reopened before any entry
	badAt     []byte // s.Last when a field read failed; a second failure there skips the entry
	fatal     error  // sticky: recovery gave up
	waited    bool   // sd_journal_wait was called on this handle
	sinceOpen int    // entries returned from this handle: it is recycled after recycleAfter
	files     *backend.FileChecker
	stats     backend.Stats
	closed    bool
	// fault, set by tests only, may fail a read: before moving (advanced false, as if
	// sd_journal_next failed) or after (as if the entry's fields were unreadable).
	fault func(advanced bool) error
}

// Available reports why this backend cannot be used here (libsystemd not loadable), or nil
// when it can.
func Available() error {
	runtime.LockOSThread() // the probe handle, like any, lives on one thread
	defer runtime.UnlockOSThread()
	j, err := sdj.NewJournalFromFiles() // no files: no I/O, only the library's symbols
	if err != nil {
		return fmt.Errorf("libsystemd not usable: %w", err)
	}
	return j.Close()
}

// Open starts the goroutine that will own the handle, opens and positions it as o says; the
// first Next returns the first entry after that position.
func Open(o backend.Options, _ Options) (*Source, error) {
	if err := Available(); err != nil {
		return nil, fmt.Errorf("ingest: sdjournal backend: %w", err)
	}
	s := &Source{o: o, own: newOwner(), files: backend.NewFileChecker(o.Dir)}
	s.stats.Backend = Name
	s.startUsec = uint64(time.Now().UnixMicro())
	if err := s.open(); err != nil {
		s.release()
		return nil, err
	}
	if err := s.seek(true); err != nil {
		s.release()
		return nil, fmt.Errorf("ingest: positioning in %s: %w", o.Name(), err)
	}
	s.scanFiles()
	return s, nil
}

// release ends the owner (closing the handle).
func (s *Source) release() {
	s.own.quit()
	s.opened = false
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
func (s *Source) recycleAfter() int {
	if s.o.NoFollow {
		return recycleBatch
	}
	return recycleFollow
}

// Next implements journal.Source.
func (s *Source) Next(e *ingest.Entry, wait time.Duration) (bool, error) {
	switch {
	case s.closed:
		return false, backend.ErrClosed
	case s.fatal != nil:
		return false, s.fatal
	}
	var deadline time.Time // set when first needed: reading an available entry needs no clock
	polled := false        // sd_journal_wait has run in this call
	for {
		// At a batch's end only: a new handle starts reading after s.Last, and the entries read
		// ahead would be read again.
		if s.opened && s.sinceOpen >= s.recycleAfter() && s.Last != nil && s.batch.served() {
			if err := s.recycle(); err != nil {
				if s.fatal = s.fail(err); s.fatal != nil {
					return false, s.fatal
				}
			}
		}
		if !s.opened {
			if deadline.IsZero() {
				deadline = time.Now().Add(wait)
			}
			if !s.Retry.Due(deadline) {
				return false, nil
			}
			if err := s.reopen(); err != nil {
				if s.fatal = s.Retry.Failed(err, time.Now()); s.fatal != nil {
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
		if s.files.Due(now) {
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
		if rem > 0 {
			s.stats.Waits++
		}
		first := !s.waited
		s.waited = true
		// step found the end, so the batch is empty: the owner reads what the wait brought.
		r := s.own.wait(rem, &s.batch, s.batchMax(), s.testCursor())
		switch {
		case r == sdj.SD_JOURNAL_INVALIDATE && first:
			// The first wait on a handle sets up inotify, returns at once and reports
			// INVALIDATE for the files found at open: not a change.
		case r == sdj.SD_JOURNAL_INVALIDATE:
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
func (s *Source) step(e *ingest.Entry) (bool, error) {
	for {
		var ok bool
		var err error
		if s.fault != nil {
			err = s.fault(false)
		}
		if err == nil {
			ok, err = s.readFast(e)
		}
		if err == nil && ok && s.fault != nil {
			err = s.fault(true)
		}
		if errors.Is(err, errFieldRead) && s.badAt != nil && bytes.Equal(s.badAt, s.Last) {
			// Failed at the same place after a reopen: the entry itself is damaged.
			s.stats.Unreadable++
			s.o.Warnf("%s: skipping an unreadable entry after cursor %s: %v", s.o.Name(), s.Last, err)
			s.badAt = nil
			continue
		}
		if errors.Is(err, errFieldRead) {
			s.badAt = append([]byte{}, s.Last...) // non-nil even before the first entry
		}
		if err != nil || !ok {
			return false, err
		}
		if s.Admit(e.Cursor, s.Resume.Pending() && s.same, &s.o, &s.stats) {
			s.sinceOpen++
			return true, nil
		}
	}
}

// Close implements journal.Source.
func (s *Source) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.release()
	return nil
}

// ThreadID is the id of the thread that owns the handle, for counting its wake-ups
// (/proc/self/task/<id>).
func (s *Source) ThreadID() int { return s.own.tid }

// Stats implements journal.Source.
func (s *Source) Stats() backend.Stats { return s.stats }
