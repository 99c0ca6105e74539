package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// ctlSource follows the journal through `journalctl -o export --follow`, for builds without
// cgo or hosts without libsystemd.so.0.
//
// Positioning uses --cursor (which includes the cursor's own entry), never --after-cursor:
// journalctl 252 implements --after-cursor as "seek, then skip two entries", so when the
// saved entry was vacuumed it silently drops the first entry after it. With --cursor the
// first entry is compared with the cursor here: skipped if it is the saved one, counted as
// CursorMissing if not. When journalctl exits (journald restarted, files vanished, killed) it
// is started again after the last cursor returned, with the backoff of retry.
type ctlSource struct {
	o         JournalOptions
	path      string
	p         *ctlProc
	started   bool // a journalctl has been started before: later starts are recoveries
	got       bool // the current journalctl produced an entry
	cur       *ctlBatch
	pos       int
	bad       int64 // Reader.Bad of the current journalctl, counted into Unreadable
	last      []byte
	tail      string // cursor of the last matching entry at OpenJournal, for a tail start
	resume    resumePoint
	startUsec int64
	retry     retry
	fatal     error
	timer     *time.Timer
	files     *fileChecker
	stats     JournalStats
	closed    bool
}

func openJournalctl(o JournalOptions) (JournalSource, error) {
	path := o.JournalctlPath
	if path == "" {
		path = "journalctl"
	}
	full, err := exec.LookPath(path)
	if err != nil {
		return nil, fmt.Errorf("ingest: journalctl backend: %w", err)
	}
	if o.Dir != "" {
		if st, err := os.Stat(o.Dir); err != nil {
			return nil, fmt.Errorf("ingest: opening %s: %w", o.name(), err)
		} else if !st.IsDir() {
			return nil, fmt.Errorf("ingest: opening %s: not a directory", o.name())
		}
	}
	s := &ctlSource{o: o, path: full, startUsec: time.Now().UnixMicro(), files: newFileChecker(o.Dir)}
	s.stats.Backend = BackendJournalctl
	s.timer = time.NewTimer(time.Hour)
	s.timer.Stop()
	if o.Cursor == "" && o.Since.IsZero() {
		if s.tail, err = s.lastCursor(); err != nil {
			return nil, err
		}
	}
	if err := s.start(); err != nil {
		return nil, err
	}
	return s, nil
}

// args builds journalctl's command line for the current position.
func (s *ctlSource) args() []string {
	a := []string{"--output=export", "--follow", "--no-pager", "--quiet", ctlExportOptions}
	if s.o.Dir != "" {
		a = append(a, "--directory="+s.o.Dir)
	}
	s.resume = resumePoint{}
	switch {
	case s.last != nil:
		a = append(a, "--cursor="+string(s.last), "--no-tail")
		s.resume = resumePoint{cursor: string(s.last)}
	case s.o.Cursor != "":
		a = append(a, "--cursor="+s.o.Cursor, "--no-tail")
		s.resume = resumePoint{cursor: s.o.Cursor, fromStore: true}
	case !s.o.Since.IsZero():
		a = append(a, "--since="+usecArg(s.o.Since.UnixMicro()), "--no-tail")
	case !s.started && s.tail != "":
		// The tail: after the last entry that matched at OpenJournal. Not --lines=0:
		// journalctl 252 then misses all but the last of the first new entries when
		// nothing matched yet (the SeekTail behaviour of systemd < 254).
		a = append(a, "--cursor="+s.tail, "--no-tail")
		s.resume = resumePoint{cursor: s.tail, quiet: true}
	case !s.started:
		a = append(a, "--no-tail") // nothing matched at OpenJournal: all that comes is new
	default:
		a = append(a, "--since="+usecArg(s.startUsec), "--no-tail")
	}
	if m := s.o.matches(); len(m) > 0 {
		a = append(append(a, "--"), m...)
	}
	return a
}

// lastCursor returns the cursor of the newest entry matching now, "" if none.
func (s *ctlSource) lastCursor() (string, error) {
	a := []string{"--output=export", "--lines=1", "--no-pager", "--quiet", ctlExportOptions}
	if s.o.Dir != "" {
		a = append(a, "--directory="+s.o.Dir)
	}
	if m := s.o.matches(); len(m) > 0 {
		a = append(append(a, "--"), m...)
	}
	cmd := exec.Command(s.path, a...)
	stderr := &tailWriter{max: ctlStderrKept}
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("ingest: %s: finding the tail with %s: %w: %s", s.o.name(), s.path, err, strings.TrimSpace(stderr.String()))
	}
	var e Entry
	if NewReader(bytes.NewReader(out), ReaderOptions{Shape: Export}).Next(&e) != nil {
		return "", nil
	}
	return string(e.Cursor), nil
}

// usecArg writes a time for --since: "@seconds.micros" is exact to the microsecond.
func usecArg(us int64) string { return fmt.Sprintf("@%d.%06d", us/1e6, us%1e6) }

func (s *ctlSource) start() error {
	p, err := startCtl(s.path, s.args())
	if err != nil {
		return fmt.Errorf("ingest: starting %s for %s: %w", s.path, s.o.name(), err)
	}
	if s.started {
		s.stats.Reopens++
	}
	s.p, s.started, s.got, s.bad = p, true, false, 0
	for _, msg := range s.files.scan(time.Now()) {
		s.stats.BadFiles++
		s.o.warn("%s", msg)
	}
	return nil
}

// Next implements JournalSource.
func (s *ctlSource) Next(e *Entry, wait time.Duration) (bool, error) {
	switch {
	case s.closed:
		return false, ErrJournalClosed
	case s.fatal != nil:
		return false, s.fatal
	}
	deadline := time.Now().Add(wait)
	for {
		for s.cur != nil && s.pos < len(s.cur.recs) {
			s.cur.entry(s.pos, e)
			s.pos++
			s.got = true
			if s.resume.pending() {
				if s.resume.first(bytes.Equal(e.Cursor, []byte(s.resume.cursor)), &s.o, &s.stats) {
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
		if b := s.cur; b != nil {
			s.cur = nil
			if b.err != nil {
				if s.fatal = s.ended(b.err); s.fatal != nil {
					return false, s.fatal
				}
				continue
			}
			s.p.free <- b
		}
		if s.p == nil {
			if !s.retry.due(deadline) {
				return false, nil
			}
			if err := s.start(); err != nil {
				if s.fatal = s.retry.failed(err, time.Now()); s.fatal != nil {
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
func (s *ctlSource) receive(deadline time.Time) bool {
	select {
	case b := <-s.p.full:
		s.take(b)
		return true
	default:
	}
	now := time.Now()
	if s.files.due(now) {
		for _, msg := range s.files.scan(now) {
			s.stats.BadFiles++
			s.o.warn("%s", msg)
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

func (s *ctlSource) take(b *ctlBatch) {
	s.cur, s.pos = b, 0
	s.stats.Unreadable += b.bad - s.bad
	s.bad = b.bad
}

// ended handles the end of journalctl's output: it is reaped and, unless the cause is a
// cursor it cannot parse, started again after the backoff. The result is non-nil when the
// retries are used up.
func (s *ctlSource) ended(why error) error {
	p := s.p
	s.p = nil
	werr := p.wait()
	stderr := strings.TrimSpace(p.stderr.String())
	if !s.got && s.resume.fromStore && strings.Contains(stderr, "cursor") {
		// journalctl rejected the saved cursor before printing anything.
		s.stats.CursorMissing++
		s.o.warn("%s: journalctl rejected saved cursor %q (%s); starting from %s instead", s.o.name(), s.o.Cursor, stderr, s.startName())
		s.o.Cursor = ""
		s.started = false // the tail of a first start, not a recovery
		return nil
	}
	if errors.Is(why, io.EOF) {
		why = fmt.Errorf("journalctl exited (%v)", werr)
	}
	if stderr != "" {
		why = fmt.Errorf("%w: %s", why, stderr)
	}
	s.o.warn("%s: %v; restarting it after the last entry read", s.o.name(), why)
	return s.retry.failed(fmt.Errorf("%s: %w", s.o.name(), why), time.Now())
}

func (s *ctlSource) startName() string {
	if !s.o.Since.IsZero() {
		return s.o.Since.Format(time.RFC3339Nano)
	}
	return "the tail"
}

// Close implements JournalSource: it kills journalctl and waits for it.
func (s *ctlSource) Close() error {
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

// Stats implements JournalStats.
func (s *ctlSource) Stats() JournalStats { return s.stats }
