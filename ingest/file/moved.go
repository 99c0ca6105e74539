package file

import (
	"os"
	"path/filepath"
	"time"

	"github.com/specwatch/specwatch/ingest/containerlog"
)

// A file renamed out of the globs while specwatch could not watch it — closed under MaxOpen,
// or while specwatch was down (the kubelet's 0.log → 0.log.20261120-093000, Docker's
// -json.log → -json.log.1) — is looked for in its directory by device, inode and first bytes,
// and read from its position to its end there. Not finding it, its unread lines are lost:
// counted in Stats.Lost and reported (issue 27, items 4 and 5).

// findMoved returns the file in dir with key whose first bytes are id's, opened; nil if none.
func findMoved(dir string, key devKey, id Identity) (string, *os.File, os.FileInfo) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", nil, nil
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if info, err := e.Info(); err != nil || keyOf(info, path) != key {
			continue
		}
		f, fi, err := openFile(path)
		if err != nil {
			continue
		}
		if keyOf(fi, path) != key || !id.matches(f) {
			f.Close()
			continue
		}
		return path, f, fi
	}
	return "", nil, nil
}

// refind reopens a file closed under MaxOpen that left its name, where it went.
func (s *Source) refind(t *tail) {
	path, f, fi := findMoved(filepath.Dir(t.path), keyOf2(t), t.ident)
	if f == nil {
		if t.unread() {
			s.lost(t.path, "a log file closed under file_options.max_open was deleted before its last lines were read")
		}
		return
	}
	t.f, t.path, t.outside, t.size = f, path, true, fi.Size()
	s.opened++
	s.o.Store.identify(t.id, path, t.ident)
}

// resumeMoved follows a saved file that no glob matched at the first scan, if it was renamed
// within its directory while specwatch was down.
func (s *Source) resumeMoved(p Position, now time.Time) {
	key := devKey{p.Dev, p.Ino}
	if s.byKey[key] != nil {
		return
	}
	path, f, fi := findMoved(filepath.Dir(p.Path), key, p.Identity)
	if f == nil {
		s.lost(p.Path, "a followed log file is gone since specwatch stopped (deleted, or moved out of its directory)")
		return
	}
	m, _ := containerlog.FromPath(p.Path)
	if s.o.Resolve != nil {
		s.o.Resolve(p.Path, &m)
	}
	t := s.newTail(path, m, f, fi, key, now)
	t.gone, t.goneAt, t.outside, t.rotated = true, now, true, true
	s.o.Note("found again outside the globs, where it was renamed while specwatch was down", path, p.Offset)
	s.stats.Renamed++
	s.resume(t, p)
}

// lost counts and reports a file whose unread lines cannot be read any more.
func (s *Source) lost(path, why string) {
	s.stats.Lost++
	s.o.Warn(why+"; lines written to it after the last read are lost", path, nil)
}
