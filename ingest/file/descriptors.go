package file

import (
	"cmp"
	"slices"
	"time"
)

// bound closes the least recently read files over MaxOpen; files being drained after a
// rotation stay open (their name may be gone, so they could not be reopened). Over the bound
// it closes down to three quarters of it, so that reading many closed files in turn costs one
// pass over the files per MaxOpen/4 opens rather than one per open (10,000 files).
func (s *Source) bound(keep *tail) {
	if s.opened <= s.o.MaxOpen {
		return
	}
	var open []*tail
	gone := 0
	for _, t := range s.files {
		switch {
		case t.f == nil, t == keep:
		case t.gone:
			gone++
		default:
			open = append(open, t)
		}
	}
	s.opened = len(open) + gone + b2i(keep != nil && keep.f != nil)
	if s.opened <= s.o.MaxOpen {
		return
	}
	over := s.opened - s.o.MaxOpen*3/4
	// Files read to their end first: closing one with unread lines only delays them (it is
	// reopened on demand), but one renamed away while closed has to be found again.
	slices.SortFunc(open, func(a, b *tail) int {
		if pa, pb := a.unread(), b.unread(); pa != pb {
			return cmp.Compare(b2i(pa), b2i(pb))
		}
		return a.lastUsed.Compare(b.lastUsed)
	})
	for _, t := range open[:min(over, len(open))] {
		t.close()
		s.opened--
	}
}

// reopen opens a closed file that grew, making room under the bound. The path must still be
// the same file: a different start means it was replaced while closed.
func (s *Source) reopen(t *tail, now time.Time) bool {
	f, fi, err := openFile(t.path)
	if err != nil {
		return false
	}
	if keyOf(fi, t.path) != keyOf2(t) {
		f.Close()
		return false
	}
	t.f = f
	t.lastUsed = now
	s.opened++
	s.stats.Reopened++
	s.bound(t) // never t itself: reopened to be read, it would not be (rotated files held the bound)
	return true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// unread reports whether t has bytes not handed on yet, as of the last scan's size.
func (t *tail) unread() bool { return t.r < t.w || t.size > t.readEnd() }

// pending reports whether a closed file has lines to read now: it is opened on demand rather
// than at the next scan (5,000 new files took 40 s at 128 per scan; issue 27, item 4).
func (s *Source) pending(t *tail) bool {
	return t.f == nil && !t.gone && !t.failing && t.size > t.readEnd()
}

// readFailed reports a file whose read failed (EIO) once until a read succeeds, and closes
// it: the next scan reopens and retries it, instead of taking it for idle forever (issue 27,
// item 15).
func (s *Source) readFailed(t *tail) {
	if !t.failing {
		t.failing = true
		s.stats.ReadErrors++
		s.o.Warn("cannot read a log file; retrying every scan", t.path, t.readErr)
	}
	t.readErr = nil
	t.close()
}
