package estimate

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The per-sample work of a series: step fit, short and long commit-length
// averages, the window mean, the CUSUM on it and the percentile sketch.
func BenchmarkPerSample(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 1024
	xs, ys, cs := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		xs[i] = 200 + rng.Float64()*30000
		ys[i] = gtStep(xs[i]) * (1 + 0.03*rng.NormFloat64())
		cs[i] = 2.9 * (1 + 0.15*rng.NormFloat64())
	}
	r := NewRLS(RLSOptions{})
	short, long := NewEWMA(2*time.Minute), NewEWMA(2*time.Hour)
	bm, cu := NewBlockMean(0), NewCUSUM(CUSUMOptions{})
	q := NewQuantiles(QuantilesOptions{})
	var tm int64
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		j := i & (n - 1)
		tm += 2 * nsPerSec
		r.Update(xs[j], ys[j])
		short.Update(tm, cs[j])
		long.Update(tm, cs[j])
		q.Add(cs[j])
		if m, full := bm.Add(cs[j]); full {
			cu.Update((m - long.Mean()) / (0.15 * 2.9 / 5.477))
		}
	}
}
