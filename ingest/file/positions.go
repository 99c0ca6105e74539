package file

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/specwatch/specwatch/internal/atomicfile"
	"github.com/specwatch/specwatch/internal/readfile"
)

// PositionsFile is the file a Store keeps its positions in, inside its directory.
const PositionsFile = "files.positions"

// Position is how far the pipeline got in one file.
type Position struct {
	Path string `json:"path"` // where the file was last seen (for copies: their name starts with it)
	Identity
	// Offset is where reading resumes: the end of the last line applied, or the start of a
	// line still being joined from partial records when another stream's line completed.
	Offset int64 `json:"offset"`
	// Done is the end of the last record applied; records of stream Skip that end at or
	// before it were applied and are dropped on resumption. Done == Offset when no line was
	// being joined.
	Done int64 `json:"done,omitempty"`
	Skip int   `json:"skip,omitempty"`
	// Orphan marks a truncated file's position before the truncation (copytruncate), kept
	// for its copy until a scan finds the copy: a restart in between must resume the copy
	// there, not read it again from its start. Only a copy takes it, never the file itself.
	Orphan bool `json:"orphan,omitempty"`
	// Unit is the name the file's lines carry (the unit label): the name it was found under,
	// kept through renames (app.log → app.log.1) and restarts, and given to a copytruncate
	// copy, so that a rotated file never becomes a second series. Empty: Path.
	Unit string `json:"unit,omitempty"`
}

// unitName is the name a position's lines carry.
func (p *Position) unitName() string {
	if p.Unit != "" {
		return p.Unit
	}
	return p.Path
}

// savedFile is the positions file's schema.
type savedFile struct {
	Version int        `json:"version"`
	Files   []Position `json:"files"`
}

// maxPositionsBytes bounds the positions file: a position is about 150 bytes, and the open
// files bound keeps far fewer than 10,000 files tracked.
const maxPositionsBytes = 16 << 20

// Store persists the position of every followed file, with the journal cursor's discipline:
// the pipeline applies an entry, then Marks its cursor; Flush writes the marks
// (internal/atomicfile: a temporary file, fsync, rename, fsync of the directory), so that
// after a crash the file holds the old or the new positions, never a mix, and nothing applied
// is skipped. The Source tells the
// store which files exist (track, forget); the store never reads files.
//
// Safe for concurrent use; one store per state directory.
type Store struct {
	path string

	mu       sync.Mutex
	files    map[int]*Position // by the Source's file id
	dirty    bool
	failures int64 // failed Flushes
}

// NewStore keeps positions in dir/files.positions. The directory must exist.
func NewStore(dir string) *Store {
	return &Store{path: filepath.Join(dir, PositionsFile), files: map[int]*Position{}}
}

// Path is the positions file.
func (s *Store) Path() string { return s.path }

// Load returns the saved positions, and whether a positions file existed (a first start has
// none: its files begin at their end, like the journal's tail). A damaged file is an error
// naming it; the caller starts as a first start would.
func (s *Store) Load() ([]Position, bool, error) {
	b, err := readfile.Regular(s.path, maxPositionsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("loading file positions: %w", err)
	}
	var f savedFile
	if err := json.Unmarshal(b, &f); err != nil || f.Version != 1 {
		return nil, false, fmt.Errorf("loading file positions: %s does not hold positions (version %d, %v)", s.path, f.Version, err)
	}
	for _, p := range f.Files {
		if p.Offset < 0 || p.Done < p.Offset && p.Done != 0 || p.FPLen < 0 || p.FPLen > FingerprintBytes {
			return nil, false, fmt.Errorf("loading file positions: %s: a position out of range for %s", s.path, p.Path)
		}
	}
	return f.Files, true, nil
}

// track starts saving a position for file id (a file found, or reopened after a truncation).
func (s *Store) track(id int, p Position) {
	s.mu.Lock()
	cp := p
	s.files[id] = &cp
	s.dirty = true
	s.mu.Unlock()
}

// touch makes the next Flush write, changed or not.
func (s *Store) touch() {
	s.mu.Lock()
	s.dirty = true
	s.mu.Unlock()
}

// identify updates a file's path or fingerprint (it grew, or was renamed).
func (s *Store) identify(id int, path string, ident Identity) {
	s.mu.Lock()
	if p := s.files[id]; p != nil && (p.Path != path || p.Identity != ident) {
		p.Path, p.Identity = path, ident
		s.dirty = true
	}
	s.mu.Unlock()
}

// forget stops saving file id: it is gone and read to its end.
func (s *Store) forget(id int) {
	s.mu.Lock()
	if _, ok := s.files[id]; ok {
		delete(s.files, id)
		s.dirty = true
	}
	s.mu.Unlock()
}

// Mark records an entry's cursor (from Entry.Cursor, "id:offset" or "id:offset:done:skip")
// as applied. Cursors that do not parse or name no tracked file are ignored.
func (s *Store) Mark(cursor []byte) {
	id, p, ok := parseCursor(cursor)
	if !ok {
		return
	}
	s.mu.Lock()
	if f := s.files[id]; f != nil {
		f.Offset, f.Done, f.Skip = p.Offset, p.Done, p.Skip
		s.dirty = true
	}
	s.mu.Unlock()
}

// Flush writes the positions if anything changed since the last successful write.
func (s *Store) Flush() error {
	s.mu.Lock()
	if !s.dirty {
		s.mu.Unlock()
		return nil
	}
	f := savedFile{Version: 1, Files: make([]Position, 0, len(s.files))}
	for _, p := range s.files {
		f.Files = append(f.Files, *p)
	}
	s.dirty = false
	s.mu.Unlock()
	b, err := json.Marshal(f)
	if err == nil {
		err = s.write(b)
	}
	if err != nil {
		s.mu.Lock()
		s.dirty = true // retried with the newest marks at the next flush
		s.failures++
		s.mu.Unlock()
	}
	return err
}

// Failures counts the Flushes that failed: until one succeeds again, a restart resumes from
// the positions last written.
func (s *Store) Failures() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failures
}

// ErrSave marks a failed write of the positions file, so that the pipeline, which flushes
// the journal cursor and the file positions alike, tells them apart: each has its own
// failure counter and alert.
var ErrSave = errors.New("saving file positions")

func (s *Store) write(b []byte) error {
	if err := atomicfile.Write(s.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("%w: %w", ErrSave, err)
	}
	return nil
}

// appendCursor formats a position as an entry's cursor.
func appendCursor(dst []byte, id int, offset, done int64, skip int) []byte {
	dst = strconv.AppendInt(dst[:0], int64(id), 10)
	dst = append(dst, ':')
	dst = strconv.AppendInt(dst, offset, 10)
	if done != offset {
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, done, 10)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(skip), 10)
	}
	return dst
}

func parseCursor(c []byte) (id int, p Position, ok bool) {
	var nums [4]int64
	n := 0
	for i := 0; i < len(c); {
		if n == len(nums) {
			return 0, p, false
		}
		v, j := int64(0), i
		for j < len(c) && c[j] >= '0' && c[j] <= '9' && j-i < 18 {
			v = v*10 + int64(c[j]-'0')
			j++
		}
		if j == i || (j < len(c) && c[j] != ':') {
			return 0, p, false
		}
		nums[n] = v
		n++
		i = j + 1
	}
	switch n {
	case 2:
		return int(nums[0]), Position{Offset: nums[1], Done: nums[1]}, true
	case 4:
		return int(nums[0]), Position{Offset: nums[1], Done: nums[2], Skip: int(nums[3])}, true
	}
	return 0, p, false
}
