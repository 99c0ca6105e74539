package ingest

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// args builds journalctl's command line for the current position.
func (s *ctlSource) args() []string {
	a := []string{"--output=export", "--no-pager", "--quiet", ctlExportOptions}
	if !s.o.NoFollow {
		a = append(a, "--follow")
	}
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

// noFiles reports whether the journal has no files at all.
func (s *ctlSource) noFiles() bool {
	for _, d := range s.files.dirs {
		if len(journalFiles(d)) > 0 {
			return false
		}
	}
	return true
}
