package position

import (
	"math"
	"testing"
)

// TestDrafts: the rates printed to 3 decimals give the drafts back exactly (the real engine's
// 29 drafts accepting 50 tokens); a list that accepted nothing counts its drafted tokens over
// the draft size seen, within the verify steps; nothing drafted is nothing measured.
func TestDrafts(t *testing.T) {
	var d DraftSize
	if n := d.Drafts([]float64{0.690, 0.655, 0.345, 0.034, 0, 0}, 50, 515, 29); n != 29 {
		t.Errorf("drafts %v, want 29", n)
	}
	if n := d.Drafts(make([]float64, 20), 0, 1370, 200); n != 77 {
		t.Errorf("drafts %v, want 1370 ÷ (515 / 29) = 77", n)
	}
	if n := d.Drafts(make([]float64, 20), 0, 1370, 60); n != 60 {
		t.Errorf("drafts %v, want the 60 verify steps", n)
	}
	if n := (&DraftSize{}).Drafts(make([]float64, 4), 0, 3, 0); n != 3 {
		t.Errorf("drafts %v before any size is known, want one per token", n)
	}
	if n := d.Drafts(make([]float64, 4), 0, 0, 127); n != 0 {
		t.Errorf("drafts %v for a request that never drafted", n)
	}
}

// TestAdviseLong: most of a 64-position draft costs more than it adds: keep 4 positions.
func TestAdviseLong(t *testing.T) {
	a := make([]float64, 64)
	copy(a, []float64{0.9, 0.8, 0.6, 0.3, 0.1, 0.05})
	adv, ok := Advise(a, 0.03)
	if !ok || adv.Suggested != 4 || adv.Configured != 64 || math.Abs(adv.Kept-3.6) > 1e-9 || math.Abs(adv.Commit-3.75) > 1e-9 {
		t.Fatalf("advice %+v", adv)
	}
	if c := Conditional([]float64{0.8, 0.4, 0, 0}); c[0] != 0.8 || c[1] != 0.5 || c[3] != 0 {
		t.Errorf("conditional %v", c)
	}
}

// TestSet: cumulative lists replace the figures; another length starts the count again.
func TestSet(t *testing.T) {
	var p Acc
	p.Set(1, []float64{0.7, 0.6})
	p.Set(2, []float64{0.5, 0.4})
	if a := p.Acceptance(nil); a[0] != 0.5 || p.Samples() != 2 {
		t.Errorf("acceptance %v, %d samples", a, p.Samples())
	}
	p.Set(3, []float64{0.5, 0.4, 0.1})
	if p.Samples() != 1 {
		t.Errorf("%d samples after a new length", p.Samples())
	}
}
