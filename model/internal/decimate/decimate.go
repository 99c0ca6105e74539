// Package decimate keeps a series' points for plots: all of them at first, then every second
// one, then every fourth, so that a day or a week fits in a fixed array at decreasing
// resolution.
//
// The array is allocated in two steps, First points and then Max: a series that lives for a
// few samples (a restarted rank, a flood of made-up units up to the series cap) costs a few
// kilobytes, not the whole array, and a busy one allocates twice in its life, never in steady
// state.
package decimate

// Points holds the kept points.
type Points[T any] struct {
	Pts    []T
	max    int
	first  int
	stride int
	skip   int
}

// New keeps up to max points, allocating first of them at the start.
func New[T any](max, first int) Points[T] { return Points[T]{max: max, first: first, stride: 1} }

// Take reports whether the next point is kept; call Add with it only then.
func (h *Points[T]) Take() bool {
	h.skip++
	if h.skip < h.stride {
		return false
	}
	h.skip = 0
	return true
}

// Add keeps v, halving the points kept (and the resolution) when the array is full.
func (h *Points[T]) Add(v T) {
	if len(h.Pts) == h.max {
		half := h.Pts[:0]
		for i := 0; i < len(h.Pts); i += 2 {
			half = append(half, h.Pts[i])
		}
		h.Pts = half
		h.stride *= 2
	}
	if len(h.Pts) == cap(h.Pts) {
		// Two sizes only: a few points for a series that may never grow (a restarted rank, a
		// made-up unit), then the whole array at once, so doubling leaves no trail of garbage.
		size := h.max
		if cap(h.Pts) == 0 {
			size = min(h.first, h.max)
		}
		grown := make([]T, len(h.Pts), size)
		copy(grown, h.Pts)
		h.Pts = grown
	}
	h.Pts = append(h.Pts, v)
}
