//go:build linux

package journalctl

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
)

// args builds journalctl's command line for the current position.
func (s *Source) args() []string {
	a := []string{"--output=export", "--no-pager", "--quiet", ctlExportOptions}
	if !s.o.NoFollow {
		a = append(a, "--follow")
	}
	a = append(a, s.dirArgs()...)
	s.Resume = backend.ResumePoint{}
	switch {
	case s.Last != nil:
		a = append(a, "--cursor="+string(s.Last), "--no-tail")
		s.Resume = backend.ResumePoint{Cursor: string(s.Last)}
	case s.o.Cursor != "":
		a = append(a, "--cursor="+s.o.Cursor, "--no-tail")
		s.Resume = backend.ResumePoint{Cursor: s.o.Cursor, FromStore: true}
	case s.o.Head:
		a = append(a, "--no-tail")
	case !s.o.Since.IsZero():
		a = append(a, "--since="+usecArg(s.o.Since.UnixMicro()), "--no-tail")
	case !s.started && s.tail != "":
		// The tail: after the last entry that matched at OpenJournal. Not --lines=0:
		// journalctl 252 then misses all but the last of the first new entries when
		// nothing matched yet (the SeekTail behaviour of systemd < 254).
		a = append(a, "--cursor="+s.tail, "--no-tail")
		s.Resume = backend.ResumePoint{Cursor: s.tail, Quiet: true}
	case !s.started:
		a = append(a, "--no-tail") // nothing matched at OpenJournal: all that comes is new
	default:
		a = append(a, "--since="+usecArg(s.startUsec), "--no-tail")
	}
	if m := s.o.Matches(); len(m) > 0 {
		a = append(append(a, "--"), m...)
	}
	return a
}

// lastCursor returns the cursor of the newest entry matching now, "" if none.
func (s *Source) lastCursor() (string, error) {
	a := []string{"--output=export", "--lines=1", "--no-pager", "--quiet", ctlExportOptions}
	a = append(a, s.dirArgs()...)
	if m := s.o.Matches(); len(m) > 0 {
		a = append(append(a, "--"), m...)
	}
	cmd := exec.Command(s.path, a...)
	stderr := &tailWriter{max: ctlStderrKept}
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("ingest: %s: finding the tail with %s: %w: %s", s.o.Name(), s.path, err, strings.TrimSpace(stderr.String()))
	}
	var e ingest.Entry
	if ingest.NewReader(bytes.NewReader(out), ingest.ReaderOptions{Shape: ingest.Export, MaxLineBytes: ctlFieldMax}).Next(&e) != nil {
		return "", nil
	}
	return string(e.Cursor), nil
}

// usecArg writes a time for --since: "@seconds.micros" is exact to the microsecond.
func usecArg(us int64) string { return fmt.Sprintf("@%d.%06d", us/1e6, us%1e6) }

func (s *Source) start() error {
	p, err := startCtl(s.path, s.args())
	if err != nil {
		return fmt.Errorf("ingest: starting %s for %s: %w", s.path, s.o.Name(), err)
	}
	if s.started {
		s.stats.Reopens++
	}
	s.p, s.started, s.got, s.bad = p, true, false, 0
	for _, msg := range s.files.Scan(time.Now()) {
		s.stats.BadFiles++
		s.o.Warnf("%s", msg)
	}
	return nil
}

// noFiles reports whether the journal has no files at all.
func (s *Source) noFiles() bool {
	for _, d := range s.files.Dirs {
		if len(backend.JournalFiles(d)) > 0 {
			return false
		}
	}
	return true
}

// dirArgs names the journal: a directory, and the namespace of the local journal
// (journalctl's --namespace applies to the local journal only; with a directory, its files and
// machine-id subdirectories are read).
func (s *Source) dirArgs() []string {
	switch {
	case s.o.Dir != "":
		return []string{"--directory=" + s.o.Dir}
	case s.o.Namespace != "":
		return []string{"--namespace=" + s.o.Namespace}
	}
	return nil
}
