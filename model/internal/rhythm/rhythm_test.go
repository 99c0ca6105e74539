package rhythm

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// median of a small slice by sorting a copy: the reference for Gaps.Median.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	var b [8]float64
	n := copy(b[:], v)
	for i := 1; i < n; i++ { // insertion sort: 8 values, no allocation
		for j := i; j > 0 && b[j] < b[j-1]; j-- {
			b[j], b[j-1] = b[j-1], b[j]
		}
	}
	if n%2 == 1 {
		return b[n/2]
	}
	return (b[n/2-1] + b[n/2]) / 2
}

// The incrementally sorted gaps give the median of sorting the last 8 gaps, bit for bit.
func TestMedianIncremental(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var d Gaps
	for i := range 20000 {
		if got, want := d.Median(), median(d.gaps[:min(d.n, Size)]); got != want {
			t.Fatalf("after %d gaps: median %v, want %v (gaps %v)", i, got, want, d.gaps)
		}
		n := min(d.n, Size)
		want := append([]float64(nil), d.gaps[:n]...)
		slices.Sort(want)
		if !slices.Equal(d.sorted[:n], want) {
			t.Fatalf("after %d gaps: sorted %v, want %v", i, d.sorted[:n], want)
		}
		// Whole seconds repeat, as engines' log rhythms do; fractions and outliers too.
		gap := float64(rng.IntN(6))
		switch rng.IntN(4) {
		case 0:
			gap += rng.Float64()
		case 1:
			gap *= 100
		}
		d.Add(gap)
	}
}

// BenchmarkMedian reads the median and records a gap, as the idle detector does per point.
func BenchmarkMedian(b *testing.B) {
	benchGaps(b, func(d *Gaps, gap float64) {
		_ = d.Median()
		d.Add(gap)
	})
}

// BenchmarkMedianSort is what BenchmarkMedian replaced: sorting the gaps per point.
func BenchmarkMedianSort(b *testing.B) {
	benchGaps(b, func(d *Gaps, gap float64) {
		_ = median(d.gaps[:min(d.n, Size)])
		d.gaps[d.n%Size] = gap
		d.n++
	})
}

// benchGaps feeds step a steady rhythm of gaps with a few outliers.
func benchGaps(b *testing.B, step func(d *Gaps, gap float64)) {
	var d Gaps
	gaps := [...]float64{4, 4, 5, 4, 3, 4, 4, 8, 4, 5, 4, 4, 3}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		step(&d, gaps[i%len(gaps)])
		i++
	}
}
