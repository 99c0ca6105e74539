package sim

import "github.com/specwatch/specwatch/sim/internal/noise"

// item is a pending write in the merge: a rank's next record, or one line of a noise item.
type item struct {
	at    int64  // receive time, ns
	seq   uint64 // push order: ties keep it, so the output never depends on heap internals
	rank  int32
	noise bool
	kind  noise.Kind
	line  uint8 // line within a multi-line noise item
	pick  uint32
}

// itemHeap is a binary min-heap on (at, seq). container/heap would box every item in an
// interface; this one costs no allocation once grown.
type itemHeap []item

func (h itemHeap) less(i, j int) bool {
	return h[i].at < h[j].at || (h[i].at == h[j].at && h[i].seq < h[j].seq)
}

func (h *itemHeap) push(it item) {
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

func (h *itemHeap) pop() item {
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
