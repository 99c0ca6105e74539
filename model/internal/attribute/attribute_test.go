package attribute

import (
	"math"
	"testing"
)

// TestDecompose: the terms add up to the change (to rounding); a throughput that halves because
// the commit length halved is all acceptance, one that fell because the context grew as the
// model says is all context, and the rest is the residual.
func TestDecompose(t *testing.T) {
	base := Window{Commit: 4, Step: 0.04, Context: 1000, Running: 1} // 100 tok/s
	cases := []struct {
		name                       string
		cur                        Window
		m1, m2                     float64
		acceptance, context, resid float64
	}{
		{"commit halves", Window{Commit: 2, Step: 0.04, Running: 1}, 0.04, 0.04, math.Log(0.5), 0, 0},
		{"context as modelled", Window{Commit: 4, Step: 0.08, Running: 1}, 0.04, 0.08, 0, math.Log(0.5), 0},
		{"slower than modelled", Window{Commit: 4, Step: 0.08, Running: 1}, 0.04, 0.04, 0, 0, math.Log(0.5)},
	}
	for _, c := range cases {
		r, ok := Decompose(base, c.cur, c.m1, c.m2)
		if !ok {
			t.Errorf("%s: not decomposed", c.name)
			continue
		}
		if math.Abs(r.Acceptance-c.acceptance) > 1e-12 || math.Abs(r.Context-c.context) > 1e-12 || math.Abs(r.Residual-c.resid) > 1e-12 {
			t.Errorf("%s: %+v, want acceptance %.4f context %.4f residual %.4f", c.name, r, c.acceptance, c.context, c.resid)
		}
		if math.Abs(r.Acceptance+r.Context+r.Residual-r.LogRatio) > 1e-15 || math.Abs(r.LogRatio+r.Batch-r.Total) > 1e-15 {
			t.Errorf("%s: terms do not add up: %+v", c.name, r)
		}
	}
}

// TestDecomposeDerives: a missing step or tok/s is derived from the other (T = c·r/s), the
// batch term counts only where both windows know running, and a window without a commit
// length or a non-positive prediction is refused.
func TestDecomposeDerives(t *testing.T) {
	r, ok := Decompose(Window{Commit: 2, TPS: 100, Running: 2}, Window{Commit: 2, Step: 0.04, Running: 4}, 0.04, 0.04)
	if !ok || math.Abs(r.Base.Step-0.04) > 1e-12 || math.Abs(r.Cur.TPS-200) > 1e-9 || math.Abs(r.Batch-math.Log(2)) > 1e-12 {
		t.Errorf("derived %+v ok=%v, want base step 0.04, current 200 tok/s, batch ln 2", r, ok)
	}
	if r, ok := Decompose(Window{Commit: 2, TPS: 100, Running: 2}, Window{Commit: 2, TPS: 100}, 0.04, 0.04); !ok || r.Batch != 0 {
		t.Errorf("running known on one side: %+v ok=%v, want batch 0", r, ok)
	}
	for _, c := range []struct {
		w1, w2 Window
		m1, m2 float64
	}{
		{Window{TPS: 100}, Window{Commit: 2, TPS: 100}, 0.04, 0.04},
		{Window{Commit: 2}, Window{Commit: 2, TPS: 100}, 0.04, 0.04},
		{Window{Commit: 2, TPS: 100}, Window{Commit: 2, TPS: 100}, 0, 0.04},
		{Window{Commit: 2, TPS: 100}, Window{Commit: 2, TPS: 100}, 0.04, math.Inf(1)},
	} {
		if r, ok := Decompose(c.w1, c.w2, c.m1, c.m2); ok {
			t.Errorf("Decompose(%+v, %+v, %g, %g) = %+v, want refused", c.w1, c.w2, c.m1, c.m2, r)
		}
	}
}
