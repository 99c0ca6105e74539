package decimate

import "testing"

func TestPointsHalveResolutionWhenFull(t *testing.T) {
	h := New[int](8, 2)
	for i := range 40 {
		if h.Take() {
			h.Add(i)
		}
	}
	if len(h.Pts) > 8 || cap(h.Pts) != 8 {
		t.Fatalf("len %d cap %d, want at most 8 in an array of 8", len(h.Pts), cap(h.Pts))
	}
	for i := 1; i < len(h.Pts); i++ {
		if h.Pts[i] <= h.Pts[i-1] {
			t.Fatalf("points out of order: %v", h.Pts)
		}
	}
	if h.Pts[0] != 0 || h.Pts[len(h.Pts)-1] < 32 {
		t.Fatalf("points %v should span the whole feed", h.Pts)
	}
}
