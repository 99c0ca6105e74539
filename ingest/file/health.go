package file

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Why a path cannot be read, as the specwatch_source_errors_total reason label says it.
const (
	ReasonNotFound         = "not_found"
	ReasonPermissionDenied = "permission_denied"
	ReasonOther            = "other"
)

// Reason classifies err as one of the Reason constants.
func Reason(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ReasonNotFound
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return ReasonPermissionDenied
	}
	return ReasonOther
}

// EventKind says what changed about a source's files (Options.Event).
type EventKind int

const (
	// GlobEmpty: a glob matches no file (Err says why when its directory cannot be listed).
	GlobEmpty EventKind = iota + 1
	// GlobMatches: a glob that matched nothing matches files again.
	GlobMatches
	// OpenFailed: a file matched cannot be opened (its first failure).
	OpenFailed
	// StillFailing: it still cannot be opened; Failures counts the attempts since the last
	// event, over Since. Rate-limited to one per maxBackoff.
	StillFailing
	// OpenRecovered: a file that could not be opened has been opened.
	OpenRecovered
	// Down: the source can read nothing (no file followed, and a glob's directory or every
	// file matched failing); Why says which. Up: it can again.
	Down
	Up
)

// Event is one change Options.Event hears of, from the goroutine calling Next.
type Event struct {
	Kind       EventKind
	Glob, Path string
	Err        error
	Reason     string // Reason(Err), for OpenFailed and StillFailing, and GlobEmpty with an Err
	Failures   int    // StillFailing: attempts since the last event; OpenRecovered: in all
	Since      time.Duration
	Why        string // Down
}

// Backoff of a file that cannot be opened: retried after 1 s, then twice as long each time up
// to a minute, instead of at every scan (every second, forever).
const (
	minBackoff = time.Second
	maxBackoff = time.Minute
)

// failing is a file that could not be opened.
type failing struct {
	first, next, reported time.Time
	wait                  time.Duration
	failures, unreported  int
	err                   error
}

// due reports whether a failing file is due for another attempt.
func (s *Source) due(path string, now time.Time) bool {
	f := s.failing[path]
	return f == nil || !now.Before(f.next)
}

// openFailed records a failed open of path: the first is an event, the next ones at most one
// per maxBackoff, with their count.
func (s *Source) openFailed(path string, err error, now time.Time) {
	if s.o.Failed != nil {
		s.o.Failed(Reason(err))
	}
	f := s.failing[path]
	if f == nil {
		f = &failing{first: now, reported: now, wait: minBackoff}
		s.failing[path] = f
		f.failures, f.err = 1, err
		f.next = now.Add(f.wait)
		s.event(Event{Kind: OpenFailed, Path: path, Err: err, Reason: Reason(err), Failures: 1})
		return
	}
	f.failures++
	f.unreported++
	f.err = err
	f.wait = min(2*f.wait, maxBackoff)
	f.next = now.Add(f.wait)
	if now.Sub(f.reported) >= maxBackoff {
		s.event(Event{Kind: StillFailing, Path: path, Err: err, Reason: Reason(err), Failures: f.unreported, Since: now.Sub(f.reported)})
		f.reported, f.unreported = now, 0
	}
}

// openedAgain ends path's failures, if it had any.
func (s *Source) openedAgain(path string, now time.Time) {
	if f := s.failing[path]; f != nil {
		delete(s.failing, path)
		s.event(Event{Kind: OpenRecovered, Path: path, Failures: f.failures, Since: now.Sub(f.first)})
	}
}

func (s *Source) event(e Event) {
	if s.o.Event != nil {
		s.o.Event(e)
	}
}

// globChecked records whether glob g matched anything at this scan; when it did not, why: its
// directory's listing fails (missing, permission denied) or holds nothing that matches. A
// change is an event.
func (s *Source) globChecked(g string, matches int) {
	var err error
	if matches == 0 {
		err = s.o.Probe(staticDir(g))
	}
	st, known := s.globs[g]
	cur := globState{empty: matches == 0, err: errText(err)}
	s.globs[g] = cur
	switch {
	case cur.empty && (!known || !st.empty || st.err != cur.err):
		e := Event{Kind: GlobEmpty, Glob: g, Err: err}
		if err != nil {
			e.Reason = Reason(err)
			if s.o.Failed != nil {
				s.o.Failed(e.Reason)
			}
		}
		s.event(e)
	case !cur.empty && known && st.empty:
		s.event(Event{Kind: GlobMatches, Glob: g})
	}
}

type globState struct {
	empty bool
	err   string
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// health decides after a scan whether the source can read anything, and says when that changed.
// It cannot when it follows no file and a glob's directory cannot be listed (missing,
// permission denied) or every file matched cannot be opened. A glob whose directory holds no
// match yet is no fault: the engine may not have started (it is an event all the same).
func (s *Source) health() {
	why := ""
	if len(s.files) == 0 {
		for _, g := range s.o.Globs {
			if st := s.globs[g]; st.err != "" {
				why = fmt.Sprintf("glob %s matches nothing: %s", g, st.err)
				break
			}
		}
		if why == "" && len(s.failing) > 0 {
			paths := slices.Sorted(maps.Keys(s.failing))
			why = fmt.Sprintf("no file can be opened: %v", s.failing[paths[0]].err)
		}
	}
	if s.healthChecked && why == s.why {
		return
	}
	first := !s.healthChecked
	s.healthChecked, s.why = true, why
	switch {
	case why != "":
		s.event(Event{Kind: Down, Why: why})
	case !first:
		s.event(Event{Kind: Up})
	}
}

// staticDir is the deepest directory of g without a pattern in it: what must be listable for g
// to match anything.
func staticDir(g string) string {
	dir := filepath.Dir(g)
	for strings.ContainsAny(dir, `*?[\\`) {
		dir = filepath.Dir(dir)
	}
	return dir
}

// probeDir lists one name of dir: Glob ignores a directory it cannot read, so that a glob in a
// 0700 directory of another user matched nothing, silently.
func probeDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("listing %s: %w", dir, err)
	}
	return nil
}

// CheckGlob matches g once, as a reload's check of a configuration: the number of files it
// matches and, when none, why its directory cannot be listed (nil when it can).
func CheckGlob(g string) (int, error) {
	m, err := filepath.Glob(g)
	if err != nil {
		return 0, err
	}
	if len(m) > 0 {
		return len(m), nil
	}
	return 0, probeDir(staticDir(g))
}
