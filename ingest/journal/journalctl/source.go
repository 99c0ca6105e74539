//go:build linux

package journalctl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
)

// Source follows the journal through `journalctl -o export --follow`, for builds without
// cgo or hosts without libsystemd.so.0. --output-fields keeps the pipe to the fields an ingest.Entry
// needs (journalctl adds __CURSOR, __REALTIME_TIMESTAMP, __MONOTONIC_TIMESTAMP, _BOOT_ID).
//
// Pitfalls of journalctl 252, each checked against a real journald in the tests:
//   - --after-cursor is "seek, then skip two entries": when the saved entry was vacuumed it
//     silently drops the first entry after it. So positioning uses --cursor (which includes
//     the cursor's own entry) and the first entry is compared with the cursor here: skipped
//     if it is the saved one, counted as CursorMissing if not.
//   - --lines=0 --follow (only new entries) returns just the last of the first entries that
//     arrive together when nothing matched before (the SeekTail bug of systemd < 254). The
//     tail is instead the cursor of the newest matching entry, asked for with --lines=1 at
//     OpenJournal, or the head when nothing matches yet.
//   - --follow on a journal without any file exits ("Data from the specified boot (+0) is
//     not available"): such a directory is looked at again every backend.RetryMax.
//   - A cursor journalctl cannot parse ends it at once with "Failed to seek to cursor":
//     counted as CursorMissing, and reading starts as if there were none.
//
// When journalctl exits (killed, files vanished), it is started again after the last cursor
// returned, with the backoff of retry. Close kills it; Pdeathsig kills it if specwatch dies.
type Source struct {
	o       backend.Options
	path    string
	p       *ctlProc
	started bool // a journalctl has been started before: later starts are recoveries
	got     bool // the current journalctl produced an entry
	cur     *ctlBatch
	pos     int
	bad     int64 // Reader.Bad of the current journalctl, counted into Unreadable
	backend.Progress
	tail      string // cursor of the last matching entry at OpenJournal, for a tail start
	startUsec int64
	fatal     error
	eof       bool // NoFollow: journalctl printed everything and exited
	empty     bool // the journal had no files at the last start (reported once)
	timer     *time.Timer
	files     *backend.FileChecker
	stats     backend.Stats
	closed    bool
}

// Open starts journalctl for the journal o names, positioned as o says; the first Next returns
// the first entry after that position.
func Open(o backend.Options, co Options) (*Source, error) {
	path := co.Path
	if path == "" {
		path = "journalctl"
	}
	full, err := exec.LookPath(path)
	if err != nil {
		return nil, fmt.Errorf("ingest: journalctl backend: %w", err)
	}
	if o.Dir != "" {
		if st, err := os.Stat(o.Dir); err != nil {
			return nil, fmt.Errorf("ingest: opening %s: %w", o.Name(), err)
		} else if !st.IsDir() {
			return nil, fmt.Errorf("ingest: opening %s: not a directory", o.Name())
		}
	}
	s := &Source{o: o, path: full, startUsec: time.Now().UnixMicro(), files: backend.NewFileChecker(o.Dir)}
	s.stats.Backend = Name
	s.timer = time.NewTimer(time.Hour)
	s.timer.Stop()
	if !o.Head && o.Since.IsZero() { // the tail as of now, also for when a saved cursor is rejected
		if s.tail, err = s.lastCursor(); err != nil {
			return nil, err
		}
	}
	if err := s.start(); err != nil {
		return nil, err
	}
	return s, nil
}

// Next implements journal.Source.
func (s *Source) Next(e *ingest.Entry, wait time.Duration) (bool, error) {
	switch {
	case s.closed:
		return false, backend.ErrClosed
	case s.fatal != nil:
		return false, s.fatal
	}
	deadline := time.Now().Add(wait)
	if s.eof {
		return false, io.EOF
	}
	for {
		for s.cur != nil && s.pos < len(s.cur.recs) {
			s.cur.entry(s.pos, e)
			s.pos++
			s.got = true
			same := s.Resume.Pending() && bytes.Equal(e.Cursor, []byte(s.Resume.Cursor))
			if !same && !s.o.KeepContainer(e.Container) {
				continue // another container's entry: globs cannot be journal matches
			}
			if s.Admit(e.Cursor, same, &s.o, &s.stats) {
				return true, nil
			}
		}
		if b := s.cur; b != nil {
			s.cur = nil
			if b.err != nil {
				if s.fatal = s.ended(b.err); s.fatal != nil {
					return false, s.fatal
				}
				if s.eof {
					return false, io.EOF
				}
				continue
			}
			s.p.free <- b
		}
		if s.p == nil {
			if !s.Retry.Due(deadline) {
				return false, nil
			}
			if err := s.start(); err != nil {
				if s.fatal = s.Retry.Failed(err, time.Now()); s.fatal != nil {
					return false, s.fatal
				}
			}
			continue
		}
		if !s.receive(deadline) {
			return false, nil
		}
	}
}

// receive takes the next batch, waiting until deadline; false means none came in time.
func (s *Source) receive(deadline time.Time) bool {
	select {
	case b := <-s.p.full:
		s.take(b)
		return true
	default:
	}
	now := time.Now()
	if s.files.Due(now) {
		for _, msg := range s.files.Scan(now) {
			s.stats.BadFiles++
			s.o.Warnf("%s", msg)
		}
	}
	rem := deadline.Sub(now)
	if rem <= 0 {
		return false
	}
	s.stats.Waits++
	s.timer.Reset(rem)
	defer s.timer.Stop()
	select {
	case b := <-s.p.full:
		s.take(b)
		return true
	case <-s.timer.C:
		return false
	}
}

func (s *Source) take(b *ctlBatch) {
	s.cur, s.pos = b, 0
	s.stats.Unreadable += b.bad - s.bad
	s.bad = b.bad
}

// ended handles the end of journalctl's output: it is reaped and, unless the cause is a
// cursor it cannot parse, started again after the backoff. The result is non-nil when the
// retries are used up.
func (s *Source) ended(why error) error {
	p := s.p
	s.p = nil
	werr := p.wait()
	stderr := strings.TrimSpace(p.stderr.String())
	if !s.got && s.Resume.FromStore && strings.Contains(stderr, "cursor") {
		// journalctl rejected the saved cursor before printing anything.
		s.stats.CursorMissing++
		s.o.Warnf("%s: journalctl rejected saved cursor %q (%s); starting from %s instead", s.o.Name(), s.o.Cursor, stderr, s.o.StartName())
		s.o.Cursor = ""
		s.started = false // the start of a first start (from s.tail, as of OpenJournal)
		return nil
	}
	if !s.got && !s.o.NoFollow && s.noFiles() {
		// journalctl 252 cannot follow a journal without files ("Data from the specified
		// boot (+0) is not available"): a journal-remote directory before its first
		// upload. Look again every backend.RetryMax, without using up the retries.
		if !s.empty {
			s.o.Warnf("%s: no journal files yet; checking again every %v", s.o.Name(), backend.RetryMax)
		}
		s.empty, s.started = true, false
		s.Retry.At = time.Now().Add(backend.RetryMax)
		return nil
	}
	s.empty = false
	if errors.Is(why, io.EOF) && werr == nil && s.o.NoFollow {
		s.eof = true // journalctl reached the end and said so
		return nil
	}
	if errors.Is(why, io.EOF) {
		why = fmt.Errorf("journalctl exited (%v)", werr)
	}
	if stderr != "" {
		why = fmt.Errorf("%w: %s", why, stderr)
	}
	s.o.Warnf("%s: %v; restarting it after the last entry read", s.o.Name(), why)
	return s.Retry.Failed(fmt.Errorf("%s: %w", s.o.Name(), why), time.Now())
}

// Close implements journal.Source: it kills journalctl and waits for it.
func (s *Source) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.p != nil {
		s.p.stop()
		s.p = nil
	}
	return nil
}

// Stats implements backend.Stats.
func (s *Source) Stats() backend.Stats { return s.stats }
