package estimate

import (
	"math"
	"testing"
)

// TestBilinear recovers known coefficients from exact samples at contexts up to 200k, forgets
// old samples, and refuses a constant or collinear u.
func TestBilinear(t *testing.T) {
	want := BilinearFit{A: 0.005, B: 3.8e-6, C: 0.0013, D: 9e-7}
	p := NewBilinear(1)
	for i := range 40 {
		x, u := float64(5000*i), float64(i%7)*9+float64(i%2)
		p.Add(x, u, want.Predict(x, u))
	}
	f, ok := p.Fit()
	if !ok || math.Abs(f.A-want.A) > 1e-9 || math.Abs(f.B-want.B) > 1e-12 || math.Abs(f.C-want.C) > 1e-9 ||
		math.Abs(f.D-want.D) > 1e-12 || math.Abs(f.R2-1) > 1e-9 {
		t.Errorf("fit %+v ok=%v, want %+v with R² 1", f, ok, want)
	}

	// forgetting: after many samples of a second surface the first no longer counts
	q := NewBilinear(0.9)
	second := BilinearFit{A: 0.008, B: 2e-6, C: 0.002, D: 0}
	for i := range 400 {
		x, u := float64(100*(i%30)), float64(i%11)
		y := want.Predict(x, u)
		if i >= 200 {
			y = second.Predict(x, u)
		}
		q.Add(x, u, y)
	}
	if f, ok := q.Fit(); !ok || math.Abs(f.A-second.A) > 1e-6 || math.Abs(f.C-second.C) > 1e-6 {
		t.Errorf("after forgetting: %+v ok=%v, want %+v", f, ok, second)
	}

	flat := NewBilinear(1)
	for i := range 20 {
		flat.Add(float64(100*i), 4, 0.005+3.8e-6*float64(100*i))
	}
	if _, ok := flat.Fit(); ok || flat.USpread() != 0 {
		t.Errorf("u constant: fit ok=%v spread %g, want no fit", ok, flat.USpread())
	}
	tied := NewBilinear(1) // u grows with x: their split is noise
	for i := range 20 {
		x := float64(100 * i)
		tied.Add(x, x/100, 0.005+3.8e-6*x)
	}
	if _, ok := tied.Fit(); ok {
		t.Error("u proportional to x: fit ok, want refused")
	}
}
