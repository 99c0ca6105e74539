package window

import (
	"math"
	"testing"
)

// TestPair: the best window is the block of size points with the highest tok/s, the last
// window slides over the latest size points, and the means' tok/s is commit × running ÷ step
// of the means, not the mean of per-point tok/s.
func TestPair(t *testing.T) {
	w := New(4)
	add := func(i int, commit, step float64) { w.Add(int64(i), commit, float64(100*i), step, 1) }
	for i := range 3 {
		add(i, 2, 0.02) // 100 tok/s
	}
	if w.Full() {
		t.Fatal("full before a whole window")
	}
	add(3, 2, 0.02)
	for i := 4; i < 8; i++ {
		add(i, 3, 0.02) // 150 tok/s: the best block
	}
	for i := 8; i < 11; i++ {
		add(i, 1, 0.02) // 50 tok/s
	}
	if !w.Full() {
		t.Fatal("not full after 11 points of windows of 4")
	}
	if tps, commit, _, _, _ := w.Best.Means(); math.Abs(tps-150) > 1e-9 || commit != 3 || w.Best.Start != 4 || w.Best.End != 7 {
		t.Errorf("best %+v: tok/s %.3f commit %.3f, want the block of points 4-7 at 150", w.Best, tps, commit)
	}
	// the last four: point 7 (commit 3) and points 8-10 (commit 1)
	tps, commit, ctx, step, running := w.Last.Means()
	if w.Last.N != 4 || w.Last.Start != 7 || w.Last.End != 10 || commit != 1.5 || ctx != 850 || step != 0.02 || running != 1 || math.Abs(tps-75) > 1e-9 {
		t.Errorf("last %+v: tok/s %.3f commit %.3f ctx %.0f step %.3f running %.0f; want points 7-10, 75 tok/s", w.Last, tps, commit, ctx, step, running)
	}

	// ratio of means: steps of 0.01 and 0.03 at commit 2 are 2 ÷ 0.02 = 100 tok/s, not (200 + 66.7) ÷ 2
	m := New(2)
	m.Add(0, 2, 0, 0.01, 1)
	m.Add(1, 2, 0, 0.03, 1)
	if tps, _, _, _, _ := m.Last.Means(); math.Abs(tps-100) > 1e-9 {
		t.Errorf("tok/s of the means %.3f, want 100", tps)
	}
}
