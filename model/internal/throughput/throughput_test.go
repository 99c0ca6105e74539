package throughput

import (
	"math"
	"testing"
)

// Unpredicted points count in the measured mean only until predicted ones arrive: then both
// means are over the same points.
func TestMeans(t *testing.T) {
	var s Stats
	s.Add(100, math.NaN())
	s.Add(math.NaN(), 50) // no measurement: ignored
	s.Add(0, 50)
	if m, _, ok := s.Means(); ok || m != 100 || s.N() != 1 {
		t.Fatalf("before predictions: %v %v n %d", m, ok, s.N())
	}
	s.Add(80, 100)
	s.Add(120, 90)
	m, p, ok := s.Means()
	if !ok || m != 100 || p != 95 || s.N() != 3 || s.Predicted() != 2 {
		t.Fatalf("means %v %v %v n %d np %d", m, p, ok, s.N(), s.Predicted())
	}
	if want := (20.0/80 + 30.0/120) / 2; math.Abs(s.MAPE()-want) > 1e-12 {
		t.Errorf("MAPE %v, want %v", s.MAPE(), want)
	}
}
