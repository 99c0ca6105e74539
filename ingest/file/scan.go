package file

import (
	"bytes"
	"os"
	"slices"
	"time"

	"github.com/specwatch/specwatch/ingest/containerlog"
)

type found struct {
	path string
	fi   os.FileInfo
	key  devKey
}

// scan matches the globs again: files now under another matching name keep their identity
// (rename), files no longer found are gone (read until RotateWait after they last grew), new
// files are matched against saved and truncated positions, and open files are checked for
// truncation (smaller than read, or a different start: copytruncate).
func (s *Source) scan(now time.Time) {
	first := !s.scanned
	s.scanned, s.last, s.pub.dirty = true, now, true
	clear(s.seen) // kept across scans: rebuilt, 10,000 entries a second cost a quarter of idling
	seen := s.seen
	var fresh []found
	s.scans++
	names, changed := s.paths()
	rest := s.resting(now, changed)
	for _, path := range names {
		if key, ok := rest[path]; ok {
			seen[key] = true
			continue
		}
		fi, err := statPath(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		key := keyOf(fi, path)
		if seen[key] {
			continue // a second name of a file already seen (a symlink into another glob)
		}
		seen[key] = true
		if _, ok := s.skipped[key]; ok {
			continue
		}
		if t := s.byKey[key]; t != nil {
			if t.path != path {
				t.path = path
				s.o.Store.identify(t.id, path, t.ident)
				s.rotated(t, &s.stats.Renamed)
			}
			t.gone, t.outside = false, false
			t.size = fi.Size()
			s.check(t, t.size, now)
			continue
		}
		if fi.Size() == 0 {
			// Followed from its first byte on, not before: copytruncate creates its copy
			// before filling it, and an empty copy cannot be told from a new file (taken for
			// one, its lines were all read twice). Waiting loses nothing: an empty file is
			// read from its start either way.
			continue
		}
		if !s.due(path, now) {
			continue // could not be opened: retried with backoff (health.go)
		}
		fresh = append(fresh, found{path, fi, key})
	}
	for path := range s.failing {
		if _, ok := slices.BinarySearch(names, path); !ok {
			delete(s.failing, path) // gone from the globs: nothing left to retry
		}
	}
	for key := range s.skipped {
		if !seen[key] {
			delete(s.skipped, key)
		}
	}
	for _, t := range s.files {
		if !seen[keyOf2(t)] && !t.gone {
			t.gone, t.goneAt = true, now
			s.stats.Gone++
			if t.f == nil {
				s.refind(t)
			}
			s.left(t, now)
		}
	}
	for path, at := range s.deleted {
		if now.Sub(at) > s.o.RotateWait {
			delete(s.deleted, path)
		}
	}
	// Saved positions first by identity, then copies by fingerprint, so that a copy never
	// takes the position of the file it copies.
	slices.SortStableFunc(fresh, func(a, b found) int { return len(a.path) - len(b.path) })
	for _, f := range fresh {
		s.add(f, first, now)
	}
	if first {
		s.saveFirst()
		for _, p := range s.saved {
			if !p.Orphan {
				s.resumeMoved(p, now)
			}
		}
		s.saved = nil
	}
	s.retire(now)
	s.orphans = slices.DeleteFunc(s.orphans, func(o orphan) bool {
		if now.Sub(o.at) > s.o.RotateWait {
			s.o.Store.forget(o.key)
			return true
		}
		return false
	})
	s.bound(nil)
	s.health()
}

func keyOf(fi os.FileInfo, path string) devKey {
	if dev, ino, ok := devIno(fi); ok {
		return devKey{dev, ino}
	}
	return devKey{0, uint64(len(path))} // no inodes here: only the fingerprint tells files apart
}

func keyOf2(t *tail) devKey { return devKey{t.ident.Dev, t.ident.Ino} }

// check looks for truncation of a tracked file and reopens a closed one that grew.
func (s *Source) check(t *tail, size int64, now time.Time) {
	if t.parked {
		return
	}
	if t.f == nil {
		if size == t.readEnd() {
			return
		}
		if !s.reopen(t, now) {
			return
		}
	}
	if size < t.readEnd() || !t.ident.matches(t.f) {
		s.truncate(t, now)
		return
	}
	if !t.ident.grow(t.f, size) {
		s.truncate(t, now)
		return
	}
	s.o.Store.identify(t.id, t.path, t.ident)
}

// saveFirst writes the positions at once after a first start's first scan, even with no file
// found: a SIGKILL before the first periodic save made the restart a first start again,
// starting files found since at their end and skipping their lines (seen in the soak).
func (s *Source) saveFirst() {
	if !s.o.StartAtEnd {
		return
	}
	s.o.Store.touch()
	if err := s.o.Store.Flush(); err != nil {
		s.o.Warn("cannot save the file positions; a restart before the next save starts files at their end", s.o.Store.Path(), err)
	}
}

// newTail tracks an open file.
func (s *Source) newTail(path string, m containerlog.Meta, f *os.File, fi os.FileInfo, key devKey, now time.Time) *tail {
	t := &tail{id: s.nextID, path: path, meta: m, f: f, max: s.o.MaxLineBytes, lastData: now, lastUsed: now}
	s.nextID++
	s.opened++
	t.ident.Dev, t.ident.Ino = key.dev, key.ino
	t.ident.grow(f, fi.Size())
	t.size = fi.Size()
	setUnit(t)
	s.files = append(s.files, t)
	s.byKey[key] = t
	s.stats.Found++
	return t
}

// add starts following a file found for the first time.
func (s *Source) add(fd found, first bool, now time.Time) {
	m, _ := containerlog.FromPath(fd.path)
	if s.o.Resolve != nil {
		s.o.Resolve(fd.path, &m)
	}
	if s.o.Accept != nil && !s.o.Accept(fd.path, m) {
		s.skipped[fd.key] = fd.path
		return
	}
	f, fi, err := s.o.Open(fd.path)
	if err != nil {
		s.openFailed(fd.path, err, now)
		return
	}
	s.openedAgain(fd.path, now)
	key := keyOf(fi, fd.path)
	if key != fd.key || s.byKey[key] != nil {
		f.Close() // replaced between the stat and the open: the next scan sees the new one
		return
	}
	t := s.newTail(fd.path, m, f, fi, key, now)
	if _, ok := s.deleted[t.path]; ok {
		delete(s.deleted, t.path)
		s.stats.Recreated++
	}
	switch p, how := s.match(t, now); how {
	case matchSaved, matchOrphan:
		if how == matchOrphan {
			p = inCopy(p, t.size)
			s.stats.CopiesRead++
		}
		s.o.Note(map[int]string{matchSaved: "resumed at its saved position", matchOrphan: "a copy resumed at its original's position"}[how], t.path, p.Offset)
		s.resume(t, p)
	case matchLive:
		t.parked = true
		s.o.Note("a copy of a file being read: parked", t.path, 0)
	default:
		off := int64(0)
		skip := false
		if first && s.o.StartAtEnd {
			off, skip = lastLineEnd(f, fi.Size())
		}
		t.reset(off)
		t.skip = skip
		s.o.Note("a new file", t.path, off)
		s.o.Store.track(t.id, Position{Path: t.path, Identity: t.ident, Offset: off, Done: off, Unit: string(t.unit)})
	}
}

// resume starts t at its saved position p.
func (s *Source) resume(t *tail, p Position) {
	if p.Done > t.size && p.Offset <= t.size {
		// Records applied past the file's end: a damaged position (the positions file
		// edited or corrupted). Resuming at its line's start reads what follows instead of
		// skipping everything up to a Done that will never come (issue 27, item 7).
		s.stats.DamagedPositions++
		p.Done, p.Skip = p.Offset, 0
	}
	t.reset(p.Offset)
	t.done = p.Done
	if t.meta.Container == "" {
		t.unit = []byte(p.unitName()) // renamed (or a copy) since: its lines keep their series
	}
	if t.sniff() && p.Done != p.Offset {
		t.dec.Resume(p.Skip, p.Done)
	}
	s.o.Store.track(t.id, Position{Path: t.path, Identity: t.ident, Offset: p.Offset, Done: p.Done, Skip: p.Skip, Unit: string(t.unit)})
}

// left classifies a file no longer found under its name: renamed out of the globs (it still
// has a name) or deleted, which becomes a recreation if a new file takes the name.
func (s *Source) left(t *tail, now time.Time) {
	if t.f == nil {
		return // closed under MaxOpen: which of the two cannot be told
	}
	has, known := linked(t.f)
	switch {
	case !known:
	case has:
		s.rotated(t, &s.stats.Renamed)
	case !t.rotated:
		t.rotated = true
		s.deleted[t.path] = now
	}
}

// rotated counts a rotation of t, once per file.
func (s *Source) rotated(t *tail, kind *int64) {
	if !t.rotated {
		t.rotated = true
		*kind++
	}
}

// retire closes rotated or deleted files read to their end RotateWait after they last grew.
func (s *Source) retire(now time.Time) {
	s.files = slices.DeleteFunc(s.files, func(t *tail) bool {
		if !t.gone {
			return false
		}
		if !t.parked && t.f != nil && (t.fill(now) || t.hasRecord() || now.Sub(t.lastData) < s.o.RotateWait || now.Sub(t.goneAt) < s.o.RotateWait) {
			return false
		}
		if fi, err := os.Stat(t.path); err == nil && keyOf(fi, t.path) == keyOf2(t) && !t.outside {
			t.gone = false // still there: the scan missed it (a directory being replaced)
			return false
		}
		s.drop(t)
		return true
	})
	if s.cur >= len(s.files) {
		s.cur = 0
	}
}

func (s *Source) drop(t *tail) {
	if t.r < t.w && !t.skip {
		t.truncated++ // a last line without its newline: the writer never finished it
	}
	for _, c := range s.files {
		if c.parked && c.shadowOf == t.id {
			c.close() // its original was read to its end: the copy holds nothing new
			c.buf = nil
		}
	}
	if t.dec != nil {
		t.dec.Drop() // a line cut by the rotation: its end went to the next file
		ds := t.dec.Stats()
		s.stats.Bad += ds.Bad
		s.stats.Cut += ds.Cut
	}
	s.stats.Cut += t.truncated
	s.stats.ReadBytes += t.read
	s.stats.NULBytes += t.nuls
	s.o.Note("dropped, read to its end", t.path, t.readEnd())
	t.close()
	delete(s.byKey, keyOf2(t))
	s.o.Store.forget(t.id)
}

// lastLineEnd is where a file first read at its end starts: after its last complete line, so
// that a line being written is read whole; without a newline in the last 64 KiB, at the end,
// dropping the rest of that line.
func lastLineEnd(f *os.File, size int64) (int64, bool) {
	if size == 0 {
		return 0, false
	}
	n := min(size, 64<<10)
	buf := make([]byte, n)
	if got, _ := f.ReadAt(buf, size-n); int64(got) != n {
		return size, true
	}
	if k := bytes.LastIndexByte(buf, '\n'); k >= 0 {
		return size - n + int64(k) + 1, false
	}
	if n == size {
		return 0, false // one unfinished first line: it is read whole when it ends
	}
	return size, true
}

// statPath is the scan's stat, a variable so that a test can run a rotation between two of
// them, as a rotator racing the scan does.
var statPath = os.Stat
