package file

import (
	"cmp"
	"slices"
	"time"
)

// bound closes the least recently read files over MaxOpen; files being drained after a
// rotation stay open (their name may be gone, so they could not be reopened).
func (s *Source) bound(now time.Time) {
	var open []*tail
	for _, t := range s.files {
		if t.f != nil && !t.gone {
			open = append(open, t)
		}
	}
	over := len(open) + s.goneOpen() - s.o.MaxOpen
	if over <= 0 {
		return
	}
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
	}
}

func (s *Source) goneOpen() (n int) {
	for _, t := range s.files {
		if t.f != nil && t.gone {
			n++
		}
	}
	return n
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
	s.stats.Reopened++
	s.bound(now)
	if t.f == nil { // closed again: every other open file was used more recently
		return false
	}
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
