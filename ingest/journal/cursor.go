package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"github.com/specwatch/specwatch/internal/atomicfile"
	"github.com/specwatch/specwatch/internal/readfile"
)

// CursorFile is the file name a CursorStore keeps its cursor in, inside its directory.
const CursorFile = "journal.cursor"

// DefaultFlushInterval is how often FlushDue writes a new mark: at most one write and two
// fsyncs per second whatever the log rate, and at most a second of entries re-read (never
// lost) after a crash.
const DefaultFlushInterval = time.Second

// CursorStore persists the journal cursor of the last entry whose effects are in the model,
// so that a restart resumes right after it.
//
// Protocol: the pipeline applies an entry, then calls Mark with its cursor (cheap: a copy),
// and calls FlushDue from its housekeeping and Flush at shutdown. A crash loses only marks
// not yet flushed, whose entries are then read again; since marks follow applies, nothing
// applied is skipped. A failed write (read-only or full disk) is returned and retried at the
// next flush with the newest mark; marks are never dropped.
//
// Safe for concurrent use. One store per directory: two daemons sharing one state directory
// would overwrite each other's cursor.
type CursorStore struct {
	path string
	// Interval is FlushDue's minimum spacing between writes; NewCursorStore sets
	// DefaultFlushInterval.
	Interval time.Duration

	mu      sync.Mutex
	mark    []byte // newest cursor marked
	saved   []byte // newest cursor on disk
	lastTry time.Time
	failed  error // the last flush's error, nil after a success
}

// NewCursorStore keeps the cursor in dir/journal.cursor. The directory must exist.
func NewCursorStore(dir string) *CursorStore {
	return &CursorStore{path: filepath.Join(dir, CursorFile), Interval: DefaultFlushInterval}
}

// Path is the cursor file.
func (s *CursorStore) Path() string { return s.path }

// maxCursorBytes bounds the cursor file: libsystemd's cursors are about 150 bytes. A larger
// file is not a cursor (10 MB of zeros once took the daemon to 263 MB and a 52 MB log line).
const maxCursorBytes = 4096

// Load returns the saved cursor; a missing file means no cursor yet ("", nil). A file that is
// not a regular file, is over the bound, or does not hold a journal cursor is refused with an
// error that quotes none of it: the path may be a symlink to any file on the host.
func (s *CursorStore) Load() (string, error) {
	b, err := readfile.Regular(s.path, maxCursorBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("loading the journal cursor: %w", err)
	}
	c := bytes.TrimSpace(b)
	if !ValidCursor(c) {
		return "", fmt.Errorf("loading the journal cursor: %s does not hold a journal cursor (%d bytes)", s.path, len(b))
	}
	s.mu.Lock()
	s.saved = append(s.saved[:0], c...)
	s.mu.Unlock()
	return string(c), nil
}

// ValidCursor reports whether c has the shape of a libsystemd cursor: ';'-separated k=v
// pairs with keys among s, i, b, m, t, x and hexadecimal values, as sd_journal_get_cursor
// writes them (the native reader writes the same).
func ValidCursor(c []byte) bool {
	if len(c) == 0 || len(c) > maxCursorBytes {
		return false
	}
	for part := range bytes.SplitSeq(c, []byte{';'}) {
		k, v, ok := bytes.Cut(part, []byte{'='})
		if !ok || len(k) != 1 || !bytes.ContainsAny(k, "sibmtx") || len(v) == 0 {
			return false
		}
		for _, ch := range v {
			if !('0' <= ch && ch <= '9' || 'a' <= ch && ch <= 'f' || 'A' <= ch && ch <= 'F') {
				return false
			}
		}
	}
	return true
}

// Save writes cursor durably now (internal/atomicfile: a temporary file in the same directory,
// fsync, rename over the cursor file, fsync of the directory). After a crash the file holds the
// old or the new cursor, never a mix.
func (s *CursorStore) Save(cursor string) error {
	if err := s.write([]byte(cursor)); err != nil {
		return err
	}
	s.mu.Lock()
	s.saved = append(s.saved[:0], cursor...)
	s.mu.Unlock()
	return nil
}

func (s *CursorStore) write(cursor []byte) error {
	if err := atomicfile.Write(s.path, append(cursor, '\n'), 0o600); err != nil {
		return fmt.Errorf("ingest: saving the journal cursor: %w", err)
	}
	return nil
}

// Mark records cursor as applied; it is written by the next Flush. It copies cursor.
func (s *CursorStore) Mark(cursor []byte) {
	s.mu.Lock()
	s.mark = append(s.mark[:0], cursor...)
	s.mu.Unlock()
}

// Flush writes the newest mark if it is not on disk yet. On failure the mark stays pending
// and the error (naming the file) is returned; the next Flush tries again.
func (s *CursorStore) Flush() error {
	s.mu.Lock()
	s.lastTry = time.Now()
	if len(s.mark) == 0 || bytes.Equal(s.mark, s.saved) {
		s.mu.Unlock()
		return nil
	}
	c := bytes.Clone(s.mark)
	s.mu.Unlock()

	err := s.write(c) // outside the lock: Mark never waits for an fsync

	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed = err
	if err == nil {
		s.saved = append(s.saved[:0], c...)
	}
	return err
}

// FlushDue flushes when Interval has passed since the last flush attempt (successful or
// not); otherwise it does nothing and returns nil.
func (s *CursorStore) FlushDue(now time.Time) error {
	s.mu.Lock()
	due := now.Sub(s.lastTry) >= s.Interval
	s.mu.Unlock()
	if !due {
		return nil
	}
	return s.Flush()
}

// Pending reports whether a mark is not on disk yet.
func (s *CursorStore) Pending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.mark) > 0 && !bytes.Equal(s.mark, s.saved)
}

// Saved returns the newest cursor known to be on disk ("" if none).
func (s *CursorStore) Saved() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.saved)
}

// Err returns the last flush's error, nil once a flush succeeded: for a health check.
func (s *CursorStore) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}
