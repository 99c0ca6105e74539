package estimate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// type7Quantile is the sort-based reference (NumPy's default).
func type7Quantile(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	k := int(h)
	if k+1 >= len(sorted) {
		return sorted[k]
	}
	return sorted[k] + (h-float64(k))*(sorted[k+1]-sorted[k])
}

// Commit lengths as logged (two decimals): exact percentiles.
func TestQuantilesExactOnGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 9))
	q := NewQuantiles(QuantilesOptions{})
	var vs []float64
	var sum float64
	for range 20000 {
		v := math.Round(max(1, 2.9*(1+0.15*rng.NormFloat64()))*100) / 100
		q.Add(v)
		vs = append(vs, v)
		sum += v
	}
	slices.Sort(vs)
	for _, p := range []float64{0, 0.1, 0.25, 0.5, 0.9, 0.99, 1} {
		if got, want := q.Quantile(p), type7Quantile(vs, p); math.Abs(got-want) > 1e-9 {
			t.Errorf("p%.0f: %v, want %v", 100*p, got, want)
		}
	}
	if q.Count() != 20000 || math.Abs(q.Mean()-sum/20000) > 1e-12 || q.Min() != vs[0] || q.Max() != vs[len(vs)-1] {
		t.Errorf("count %d mean %v min %v max %v", q.Count(), q.Mean(), q.Min(), q.Max())
	}
	t.Logf("p10 %.2f p50 %.2f p90 %.2f mean %.3f", q.Quantile(0.1), q.Quantile(0.5), q.Quantile(0.9), q.Mean())
}

// Off-grid values are within half a bin; out-of-range ones are clamped to
// the exact extremes.
func TestQuantilesOffGridAndRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	q := NewQuantiles(QuantilesOptions{})
	var vs []float64
	for range 5000 {
		v := 0.5 + rng.Float64()*80 // some below 1, some above 64
		q.Add(v)
		vs = append(vs, v)
	}
	q.Add(math.NaN())
	q.Add(math.Inf(1))
	slices.Sort(vs)
	for _, p := range []float64{0.1, 0.5, 0.7} {
		if got, want := q.Quantile(p), type7Quantile(vs, p); math.Abs(got-want) > 0.005+1e-9 {
			t.Errorf("p%.0f: %v, want %v ± 0.005", 100*p, got, want)
		}
	}
	if q.Quantile(0) != vs[0] || q.Quantile(1) != vs[len(vs)-1] || q.Count() != 5000 {
		t.Errorf("extremes %v %v count %d", q.Quantile(0), q.Quantile(1), q.Count())
	}
	if v := q.Quantile(0.95); v < 64 || v > vs[len(vs)-1] {
		t.Errorf("p95 in the overflow bin: %v", v)
	}
}

func TestQuantilesEmptySmallMerge(t *testing.T) {
	q := NewQuantiles(QuantilesOptions{})
	if !math.IsNaN(q.Quantile(0.5)) || !math.IsNaN(q.Mean()) || q.Count() != 0 {
		t.Fatal("empty")
	}
	q.Add(2.5)
	if q.Quantile(0.1) != 2.5 || q.Quantile(0.9) != 2.5 {
		t.Fatal("single value")
	}
	q.Add(3.5)
	if q.Quantile(0.5) != 3 || q.Quantile(-1) != 2.5 || q.Quantile(2) != 3.5 {
		t.Fatalf("two values: %v %v %v", q.Quantile(0.5), q.Quantile(-1), q.Quantile(2))
	}
	o := NewQuantiles(QuantilesOptions{})
	o.Add(1.5)
	if !q.Merge(&o) || q.Count() != 3 || q.Quantile(0) != 1.5 || q.Quantile(0.5) != 2.5 {
		t.Fatalf("merge: count %d min %v median %v", q.Count(), q.Quantile(0), q.Quantile(0.5))
	}
	other := NewQuantiles(QuantilesOptions{Min: 1, Max: 17, Resolution: 0.05})
	if q.Merge(&other) {
		t.Fatal("merged different layouts")
	}
	q.Reset()
	if q.Count() != 0 || !math.IsNaN(q.Quantile(0.5)) {
		t.Fatal("reset")
	}
}

func TestQuantilesNoAllocs(t *testing.T) {
	q := NewQuantiles(QuantilesOptions{})
	v := 1.0
	if n := testing.AllocsPerRun(1000, func() {
		v += 0.01
		q.Add(v)
	}); n != 0 {
		t.Fatalf("%v allocations per Add", n)
	}
}

func BenchmarkQuantilesAdd(b *testing.B) {
	q := NewQuantiles(QuantilesOptions{})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q.Add(1 + float64(i%700)/100)
	}
}
