package file

import (
	"slices"
	"strings"
	"time"
)

// Copytruncate: a file truncated in place starts again at 0, and its old position goes on in
// its copy, when the globs find one. A copy is recognised by its name (the original's plus a
// suffix, as logrotate names them) and its first bytes (the original's).

// truncate restarts a file at 0 whose content was replaced in place (copytruncate). Its old
// position is kept for a copy of it: a parked copy starts reading there now, or a copy found
// later does.
func (s *Source) truncate(t *tail, now time.Time) {
	s.stats.Truncated++
	old := t.position()
	s.o.Note("truncated in place", t.path, old.Offset)
	old.Path, old.Identity, old.Unit = t.path, t.ident, string(t.unit)
	resumed := false
	for _, c := range s.files {
		if c.parked && c.shadowOf == t.id {
			s.unpark(c, old, now)
			resumed = true
		}
	}
	if !resumed {
		s.nextOrphan--
		s.orphans = append(s.orphans, orphan{path: t.path, Position: old, at: now, key: s.nextOrphan})
		saved := old
		saved.Orphan = true
		s.o.Store.track(s.nextOrphan, saved)
	}
	t.reset(0)
	if t.dec != nil { // its counts stay counted: counters never go down (issue 27, item 14)
		ds := t.dec.Stats()
		s.stats.Bad += ds.Bad
		s.stats.Cut += ds.Cut
	}
	t.dec = nil
	fp, _ := fingerprint(t.f, 0)
	t.ident.FPLen, t.ident.FP = 0, fp
	s.o.Store.track(t.id, Position{Path: t.path, Identity: t.ident, Unit: string(t.unit)})
}

// unpark starts reading a copy at its original's position.
func (s *Source) unpark(c *tail, p Position, now time.Time) {
	c.parked = false
	if c.f == nil {
		s.reopen(c, now)
	}
	if c.f != nil {
		if fi, err := c.f.Stat(); err == nil {
			c.size = fi.Size()
		}
	}
	p = inCopy(p, c.size)
	s.o.Note("a parked copy resumed at its original's position", c.path, p.Offset)
	c.reset(p.Offset)
	c.done = p.Done
	if c.meta.Container == "" {
		c.unit = []byte(p.unitName()) // the original's lines: the original's series
	}
	s.stats.CopiesRead++
	if c.sniff() && p.Done != p.Offset {
		c.dec.Resume(p.Skip, p.Done)
	}
	s.o.Store.track(c.id, Position{Path: c.path, Identity: c.ident, Offset: p.Offset, Done: p.Done, Skip: p.Skip, Unit: string(c.unit)})
}

// inCopy is where a copy of size bytes resumes its original's position p. Lines read from
// the original after the copy was made (written while logrotate synced the copy, before the
// truncation) are not in the copy: past its end it holds nothing unread. Resumed beyond its
// end, it was taken for truncated and read again whole (issue 27, item 1).
func inCopy(p Position, size int64) Position {
	if p.Offset >= size {
		return Position{Offset: size, Done: size, Unit: p.Unit, Path: p.Path, Identity: p.Identity}
	}
	return p
}

const (
	matchNone = iota
	matchSaved
	matchOrphan
	matchLive
)

// match finds where a new file resumes: a saved position of the same file (device, inode and
// fingerprint), or — for a copy, whose name starts with its original's and whose first bytes
// are its original's — a truncated original's position, or an original still being read (the
// copy is parked: its lines are the original's).
func (s *Source) match(t *tail, now time.Time) (Position, int) {
	for i, p := range s.saved {
		if !p.Orphan && p.Dev == t.ident.Dev && p.Ino == t.ident.Ino && p.FPLen <= t.ident.FPLen && p.Identity.matches(t.f) {
			s.saved = slices.Delete(s.saved, i, i+1)
			return p, matchSaved
		}
	}
	isCopy := func(path string, id Identity) bool {
		return id.FPLen > 0 && strings.HasPrefix(t.path, path) && t.path != path && id.matches(t.f)
	}
	orphan := func() (Position, bool) {
		for i, o := range s.orphans {
			if isCopy(o.path, o.Identity) {
				s.orphans = slices.Delete(s.orphans, i, i+1)
				s.o.Store.forget(o.key)
				return o.Position, true
			}
		}
		return Position{}, false
	}
	if p, ok := orphan(); ok {
		return p, matchOrphan
	}
	for _, c := range s.files {
		if c == t || c.parked || c.gone || t.ident.FPLen == 0 || !strings.HasPrefix(t.path, c.path) || t.path == c.path {
			continue
		}
		if sameStart(c, t) {
			t.shadowOf = c.id
			return Position{}, matchLive
		}
		if truncatedNow(c) {
			// copytruncate between this scan's look at the original and at its copy: the
			// original's truncation first, so that its position goes to the copy (taken for a
			// new file, the copy was applied a second time: the files soak, seed 729220085).
			s.truncate(c, now)
			if p, ok := orphan(); ok {
				return p, matchOrphan
			}
		}
	}
	for i, p := range s.saved {
		if isCopy(p.Path, p.Identity) {
			// The original was truncated while specwatch was down, or before it stopped and
			// saved the position as an orphan: its position goes on here.
			s.saved = slices.Delete(s.saved, i, i+1)
			p.Orphan = false
			return p, matchOrphan
		}
	}
	return Position{}, matchNone
}

// truncatedNow reports whether an open file is shorter than what was read of it, or no longer
// starts with its fingerprinted bytes.
func truncatedNow(c *tail) bool {
	if c.f == nil {
		return false
	}
	fi, err := c.f.Stat()
	return err == nil && (fi.Size() < c.readEnd() || !c.ident.matches(c.f))
}

// sameStart reports whether copy t starts with the bytes of original c, over the shorter of
// their fingerprints. An original closed under the open-files bound is opened for the check.
func sameStart(c, t *tail) bool {
	if c.ident.FPLen == 0 {
		return false // an empty original (truncated, not yet written again) has no start to copy
	}
	f := c.f
	if f == nil {
		var err error
		if f, _, err = openFile(c.path); err != nil {
			return false
		}
		defer f.Close()
	}
	return samePrefix(f, t.f, min(c.ident.FPLen, t.ident.FPLen))
}
