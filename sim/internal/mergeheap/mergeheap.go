// Package mergeheap orders the simulator's pending writes: each rank's next record and the
// lines of noise between them, by receive time and then by push order.
package mergeheap

import "github.com/specwatch/specwatch/sim/internal/noise"

// Item is a pending write in the merge: a rank's next record, or one line of a noise item.
type Item struct {
	At    int64  // receive time, ns
	Seq   uint64 // push order: ties keep it, so the output never depends on heap internals
	Rank  int32
	Noise bool
	Kind  noise.Kind
	Line  uint8 // line within a multi-line noise item
	Pick  uint32
}

// Heap is a binary min-heap on (at, seq). container/heap would box every item in an
// interface; this one costs no allocation once grown.
type Heap []Item

func (h Heap) less(i, j int) bool {
	return h[i].At < h[j].At || (h[i].At == h[j].At && h[i].Seq < h[j].Seq)
}

// Push adds it.
func (h *Heap) Push(it Item) {
	*h = append(*h, it)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

// Pop removes and returns the least item; the heap must not be empty.
func (h *Heap) Pop() Item {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && s.less(l, m) {
			m = l
		}
		if l+1 < n && s.less(l+1, m) {
			m = l + 1
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}
