package estimate

import (
	"math"
	"testing"
)

// TestPlane recovers a known plane from exact samples and refuses a degenerate u.
func TestPlane(t *testing.T) {
	p := NewPlane(1)
	for i := range 20 {
		x, u := float64(100*i), float64(i%5)*3+float64(i%2)
		p.Add(x, u, 0.005+3.8e-6*x+0.0013*u)
	}
	a, b, c, ok := p.Fit()
	if !ok || math.Abs(a-0.005) > 1e-9 || math.Abs(b-3.8e-6) > 1e-12 || math.Abs(c-0.0013) > 1e-9 {
		t.Errorf("fit a=%g b=%g c=%g ok=%v, want 0.005, 3.8e-6, 0.0013", a, b, c, ok)
	}
	flat := NewPlane(1)
	for i := range 20 {
		flat.Add(float64(100*i), 4, 0.005+3.8e-6*float64(100*i))
	}
	if _, _, _, ok := flat.Fit(); ok || flat.USpread() != 0 {
		t.Errorf("u constant: fit ok=%v spread %g, want no fit", ok, flat.USpread())
	}
}
