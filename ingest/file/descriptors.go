package file

import (
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
	slices.SortFunc(open, func(a, b *tail) int { return a.lastUsed.Compare(b.lastUsed) })
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
