// Package file follows log files for `run` the way `tail -F` does — rename rotation,
// copytruncate, deletion and re-creation, new files matching the globs — and decodes each
// with its own format (plain text, Docker json-file, CRI; see ingest/containerlog). Every
// entry carries a cursor naming its file and the position after it; a Store saves those
// positions, with a fingerprint of each file's first bytes beside its device and inode, once
// the pipeline has applied the entry, so that a restart resumes every file exactly.
package file

import (
	"os"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/containerlog"
	"github.com/specwatch/specwatch/internal/readfile"
)

// Options configure New.
type Options struct {
	// Globs name the files to follow (filepath.Match patterns); they are matched again every
	// Rescan. Compressed files (.gz, .zst, …) are never followed: a rotated sibling that a
	// rotator compresses later has been read already under its uncompressed name.
	Globs []string
	// Accept, if set, keeps only the files whose container it accepts (discovery presets'
	// include and exclude patterns); Resolve fills Meta first.
	Accept func(path string, m containerlog.Meta) bool
	// Resolve, if set, completes a file's container identity (Docker: the name and image from
	// config.v2.json). Nil takes the path's identity as it is.
	Resolve func(path string, m *containerlog.Meta)
	// Positions are the saved positions (Store.Load); files found at the first scan resume
	// from them.
	Positions []Position
	// StartAtEnd: files found at the first scan with no saved position start at their end
	// (the daemon's first start, like the journal's tail). Files found later start at 0.
	StartAtEnd bool
	// Store receives the files' identities; the pipeline marks positions in it. Required.
	Store *Store
	// Host is every entry's host (the node's name).
	Host string
	// MaxOpen bounds open descriptors; the least recently read files over it are closed and
	// reopened when they grow. Rotated files being drained are never closed early. Zero means
	// DefaultMaxOpen.
	MaxOpen int
	// MaxLineBytes bounds a line; longer ones are dropped and counted. Zero means
	// containerlog.DefaultMaxLineBytes.
	MaxLineBytes int
	// Rescan is how often the globs are matched again and open files checked for rotation
	// and truncation. Zero means DefaultRescan.
	Rescan time.Duration
	// RotateWait is how long a rotated or deleted file is still read after it last grew
	// (a writer may hold it open a little longer). Zero means DefaultRotateWait.
	RotateWait time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Wait pauses when no file has anything new: nil sleeps for the duration. Tests pass a
	// function that advances their clock instead.
	Wait func(time.Duration)
	// Warn reports a file that could not be followed; nil discards.
	Warn func(msg string, path string, err error)
	// Event hears of the changes an operator should know about: a glob matching nothing, a
	// file that cannot be opened (retried with backoff), the source able to read nothing;
	// nil discards.
	Event func(Event)
	// Failed is called for every failed attempt to open a file or list a glob's directory,
	// with its Reason (the events are rate-limited, this is not); nil discards.
	Failed func(reason string)
	// Open opens a file to follow; nil means readfile.OpenRegular. Probe lists a glob's
	// directory (probeDir when nil). Tests inject failures (EACCES as root) through them.
	Open  func(path string) (*os.File, os.FileInfo, error)
	Probe func(dir string) error
	// Note reports each decision about a file (found and where it starts, truncated, a copy
	// resumed, dropped), for debug logs; nil discards.
	Note func(msg string, path string, offset int64)
}

// Defaults of Options.
const (
	DefaultMaxOpen    = 128
	DefaultRescan     = time.Second
	DefaultRotateWait = 5 * time.Second
)

// Stats counts what a Source did. A rotation is counted once per file, the first time it
// leaves the name it was followed under: renamed (it still has a name, inside the globs or
// not), recreated (it was deleted and a new file took its name within RotateWait), or
// truncated in place (each time). A file closed under MaxOpen when it leaves its name cannot
// be told renamed from deleted and is counted in Gone alone.
type Stats struct {
	Files, Open                   int   // tracked now, open descriptors now
	Lag                           int64 // bytes of the files not handed on as lines yet, from their sizes at the last scan
	ReadBytes                     int64 // bytes read from the files as lines (not the peeks for format, fingerprint, last line)
	Found, Gone, Reopened         int64 // files found, gone from their names (rotated away or deleted), reopened
	Renamed, Recreated, Truncated int64 // rotations by kind
	CopiesRead                    int64 // copytruncate copies read from the truncation point
	Bad, Cut                      int64 // records not of the file's format; lines dropped unfinished or over the bound
	SaveFailures                  int64 // failed writes of the positions file (Store.Flush)
	DamagedPositions              int64 // saved positions past their file's end, resumed at their line's start
	ReadErrors                    int64 // files whose reads started failing (EIO), once per episode
	Lost                          int64 // files gone with lines possibly unread: deleted while closed, or gone while specwatch was down
	NULBytes                      int64 // NUL bytes skipped where a line would start (a non-append writer's hole)
}

// Source follows the files. Lifecycle: New, then one goroutine calls Next until it is done,
// then Close. It is not safe for concurrent use, but for Describe and Collect (metrics.go).
type Source struct {
	o          Options
	now        func() time.Time
	files      []*tail // tracked, in the order found
	byKey      map[devKey]*tail
	skipped    map[devKey]string    // files the preset's patterns refused, and their names
	saved      []Position           // positions not matched yet (the first scan drops the rest)
	orphans    []orphan             // positions of truncated files, for their copies
	deleted    map[string]time.Time // names of files found deleted, when: a new file there is a recreation
	nextID     int
	opened     int                 // open descriptors, at least: counted at each open, recounted by bound
	scans      int                 // scans so far, for resting files
	seen       map[devKey]bool     // scan's files seen, reused
	rest       map[string]devKey   // scan's resting names, reused
	listings   map[string]*listing // by glob
	lastPaths  []string            // the last scan's names, while no directory changes
	nextOrphan int                 // the last orphan's Store key (-1, -2, ...)
	cur        int                 // the file Next reads from first
	scanned    bool
	last       time.Time // the last scan
	lastCheck  time.Time // the last activeRotated
	quickUntil time.Time // scan every checkEvery until then: a rotation is under way
	stats      Stats
	pub        published // Stats for Collect (metrics.go)
	cursor     []byte
	host       []byte
	taken      int64 // Bad+Cut handed to TakeUnreadable

	failing       map[string]*failing  // files that could not be opened, by name (health.go)
	globs         map[string]globState // whether each glob matched at the last scan
	healthChecked bool
	why           string // why the source can read nothing; "" when it can
}

type devKey struct{ dev, ino uint64 }

// orphan is a truncated file's position, read from in a copy of it (copytruncate).
type orphan struct {
	path string
	Position
	at  time.Time
	key int // its Store key: negative, apart from the files' ids
}

// New starts following; nothing is read before the first Next.
func New(o Options) *Source {
	if o.MaxOpen <= 0 {
		o.MaxOpen = DefaultMaxOpen
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = containerlog.DefaultMaxLineBytes
	}
	if o.Rescan <= 0 {
		o.Rescan = DefaultRescan
	}
	if o.RotateWait <= 0 {
		o.RotateWait = DefaultRotateWait
	}
	if o.Wait == nil {
		o.Wait = time.Sleep
	}
	if o.Warn == nil {
		o.Warn = func(string, string, error) {}
	}
	if o.Note == nil {
		o.Note = func(string, string, int64) {}
	}
	if o.Open == nil {
		o.Open = openFile
	}
	if o.Probe == nil {
		o.Probe = probeDir
	}
	s := &Source{o: o, now: o.Now, byKey: map[devKey]*tail{}, skipped: map[devKey]string{}, saved: o.Positions,
		seen: map[devKey]bool{}, rest: map[string]devKey{}, listings: map[string]*listing{},
		deleted: map[string]time.Time{}, failing: map[string]*failing{}, globs: map[string]globState{}}
	if s.now == nil {
		s.now = time.Now
	}
	s.host = []byte(o.Host)
	return s
}

// Next fills e with the next line of any file. With nothing new it waits up to wait (once)
// and returns false; it never returns io.EOF: files are followed until Close. The entry's
// slices are valid until the next call.
func (s *Source) Next(e *ingest.Entry, wait time.Duration) (bool, error) {
	ok := s.next(e, wait)
	s.pub.dirty = s.pub.dirty || ok
	s.publish(s.now(), false)
	return ok, nil
}

func (s *Source) next(e *ingest.Entry, wait time.Duration) bool {
	for try := 0; try < 2; try++ {
		now := s.now()
		if !s.scanned || now.Sub(s.last) >= s.o.Rescan || now.Before(s.quickUntil) && now.Sub(s.last) >= checkEvery {
			s.scan(now)
		}
		if s.read(e, now) {
			return true
		}
		if s.activeRotated(now) {
			// The writer's new file may not exist yet (rename, then create): look again
			// every checkEvery for a second.
			s.quickUntil = now.Add(time.Second)
			s.scan(now)
			if s.read(e, now) {
				return true
			}
		}
		if try == 0 {
			s.o.Wait(min(wait, s.o.Rescan))
		}
	}
	return false
}

// activeRotated looks, at most every checkEvery, whether a file that was growing a moment ago
// is still under its name: a writer that rotates its log goes on in a new file at once, and
// waiting for the next scan would hold its first lines up to a second.
func (s *Source) activeRotated(now time.Time) bool {
	if now.Sub(s.lastCheck) < checkEvery {
		return false
	}
	s.lastCheck = now
	for _, t := range s.files {
		if t.gone || t.parked || t.f == nil || now.Sub(t.lastData) > time.Second {
			continue
		}
		fi, err := os.Stat(t.path)
		if err != nil || keyOf(fi, t.path) != keyOf2(t) {
			return true
		}
	}
	return false
}

// checkEvery paces activeRotated: one stat per active file every 25 ms, about one per poll
// while lines flow (100 ms left probes written just after a rotation at a p99 of 99 ms).
const checkEvery = 25 * time.Millisecond

// read returns the next line of the file being read, or of the next file with one.
func (s *Source) read(e *ingest.Entry, now time.Time) bool {
	for range len(s.files) {
		if s.cur >= len(s.files) {
			s.cur = 0
		}
		t := s.files[s.cur]
		if !t.parked && (t.f != nil || t.r < t.w || s.pending(t) && s.reopen(t, now)) {
			if l, p, ok := t.next(now); ok {
				s.entry(e, t, l, p, now)
				return true
			}
			if t.replaced {
				t.replaced = false
				s.truncate(t, now)
				continue // read it again from its start
			}
			if t.readErr != nil {
				s.readFailed(t)
			}
		}
		s.cur++
	}
	return false
}

// entry fills e with a line read at now: its arrival, which places the lines of an engine
// that stamps only the time since it started (llama.cpp).
func (s *Source) entry(e *ingest.Entry, t *tail, l containerlog.Line, p Position, now time.Time) {
	// A position must not be saved with a shorter fingerprint than the bytes read allow: a
	// file truncated and rewritten while specwatch is down would pass for this one.
	if t.ident.FPLen < FingerprintBytes && t.f != nil {
		old := t.ident
		if t.ident.grow(t.f, t.readEnd()) && t.ident != old {
			s.o.Store.identify(t.id, t.path, t.ident)
		}
	}
	s.cursor = appendCursor(s.cursor, t.id, p.Offset, p.Done, p.Skip)
	*e = ingest.Entry{Time: l.Time, Arrival: now.UnixMicro(), Host: s.host, Unit: t.unit, Message: l.Msg, Cursor: s.cursor}
	fillContainer(e, t)
}

// Stats returns the counters so far.
func (s *Source) Stats() Stats {
	st := s.stats
	st.Files, st.Open = len(s.files), 0
	for _, t := range s.files {
		if t.f != nil {
			st.Open++
		}
		if t.dec != nil {
			ds := t.dec.Stats()
			st.Bad += ds.Bad
			st.Cut += ds.Cut
		}
		st.Cut += t.truncated
		st.ReadBytes += t.read
		st.NULBytes += t.nuls
		if !t.parked {
			st.Lag += max(t.size-t.pos, 0)
		}
	}
	if s.o.Store != nil {
		st.SaveFailures = s.o.Store.Failures()
	}
	return st
}

// TakeUnreadable returns the records and lines skipped since the last call (records not of
// their file's format, lines dropped over the bound), for the report's unreadable count.
func (s *Source) TakeUnreadable() int64 {
	st := s.Stats()
	n := st.Bad + st.Cut - s.taken
	s.taken = st.Bad + st.Cut
	return n
}

// Close closes every file, and publishes the last counters.
func (s *Source) Close() error {
	s.publish(s.now(), true)
	for _, t := range s.files {
		t.close()
	}
	return nil
}

// openFile opens a log file without blocking, a regular file only: a name the scan saw as one
// may be a FIFO by the open, and a blocking open of it would stop the follower for good (issue
// 27, item 8).
func openFile(path string) (*os.File, os.FileInfo, error) { return readfile.OpenRegular(path) }
