package estimate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Ground truth of the step model in the tests: the canonical example (34 ms at 13 tokens, 144 ms at 5.5k), a fit
// through (13 tokens, 34 ms) and (5,553 tokens, 144 ms).
const (
	gtA = 0.0337  // s
	gtB = 19.9e-6 // s per context token
)

func gtStep(ctx float64) float64 { return gtA + gtB*ctx }

func gtRelErr(got, want float64) float64 { return math.Abs(got/want - 1) }

// olsReference is the batch (unweighted) least-squares reference.
func olsReference(xs, ys []float64) (a, b float64) {
	var n, sx, sy, sxx, sxy float64
	for i := range xs {
		n++
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	b = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	return (sy - b*sx) / n, b
}

// Target: 3 % multiplicative noise, 50 samples with the context growing
// from 13 to 3,900 tokens: a and b within 5 %, for every seed.
func TestRLSRecoversStepModel(t *testing.T) {
	var worstA, worstB, rmsA, rmsB, olsA, olsB float64
	const seeds = 50
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 7))
		r := NewRLS(RLSOptions{})
		xs, ys := make([]float64, 50), make([]float64, 50)
		for i := range 50 {
			x := 13 + float64(i)*(3900-13)/49
			y := gtStep(x) * (1 + 0.03*rng.NormFloat64())
			r.Update(x, y)
			xs[i], ys[i] = x, y
		}
		a, b := r.Coef()
		ea, eb := gtRelErr(a, gtA), gtRelErr(b, gtB)
		if ea > 0.05 || eb > 0.05 {
			t.Errorf("seed %d: a=%.5f (%.1f%%) b=%.4g (%.1f%%), want within 5%%", seed, a, 100*ea, b, 100*eb)
		}
		worstA, worstB = max(worstA, ea), max(worstB, eb)
		rmsA += ea * ea / seeds
		rmsB += eb * eb / seeds
		oa, ob := olsReference(xs, ys)
		olsA += gtRelErr(oa, gtA) * gtRelErr(oa, gtA) / seeds
		olsB += gtRelErr(ob, gtB) * gtRelErr(ob, gtB) / seeds
		if seed == 0 {
			if r.R2() < 0.95 || math.Abs(r.ResidualScale()-0.03) > 0.01 {
				t.Errorf("R2 %.3f, residual scale %.4f (want ≈ 0.03)", r.R2(), r.ResidualScale())
			}
			t.Logf("seed 0: a=%.5f s b=%.4g s/token R2=%.3f scale=%.4f n=%d", a, b, r.R2(), r.ResidualScale(), r.N())
		}
	}
	t.Logf("13..3900 tokens, %d seeds: a err rms %.2f%% worst %.2f%%; b err rms %.2f%% worst %.2f%% (batch OLS rms: a %.2f%%, b %.2f%%)",
		seeds, 100*math.Sqrt(rmsA), 100*worstA, 100*math.Sqrt(rmsB), 100*worstB, 100*math.Sqrt(olsA), 100*math.Sqrt(olsB))
}

// Contexts uniform in 200..30k: the slope is pinned down, the intercept is
// an extrapolation that the long-context (noisier in seconds) samples
// dominate unless the fit weights by relative noise.
func TestRLSRandomContexts(t *testing.T) {
	const seeds = 200
	var rel, abs, ols [2]float64
	var bad int
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 11))
		r, ra := NewRLS(RLSOptions{}), NewRLS(RLSOptions{AbsoluteNoise: true})
		xs, ys := make([]float64, 50), make([]float64, 50)
		for i := range 50 {
			x := 200 + rng.Float64()*(30000-200)
			y := gtStep(x) * (1 + 0.03*rng.NormFloat64())
			r.Update(x, y)
			ra.Update(x, y)
			xs[i], ys[i] = x, y
		}
		acc := func(s *[2]float64, a, b float64) {
			s[0] += gtRelErr(a, gtA) * gtRelErr(a, gtA) / seeds
			s[1] += gtRelErr(b, gtB) * gtRelErr(b, gtB) / seeds
		}
		a, b := r.Coef()
		acc(&rel, a, b)
		if gtRelErr(a, gtA) > 0.05 || gtRelErr(b, gtB) > 0.05 {
			bad++
		}
		a, b = ra.Coef()
		acc(&abs, a, b)
		a, b = olsReference(xs, ys)
		acc(&ols, a, b)
	}
	t.Logf("200..30k tokens, %d seeds, rms error a / b: relative-noise RLS %.2f%% / %.2f%% (outside 5%%: %d seeds), absolute RLS %.2f%% / %.2f%%, batch OLS %.2f%% / %.2f%%",
		seeds, 100*math.Sqrt(rel[0]), 100*math.Sqrt(rel[1]), bad, 100*math.Sqrt(abs[0]), 100*math.Sqrt(abs[1]), 100*math.Sqrt(ols[0]), 100*math.Sqrt(ols[1]))
	if math.Sqrt(rel[0]) > 0.04 || math.Sqrt(rel[1]) > 0.02 {
		t.Errorf("relative-noise RLS rms errors a %.2f%% b %.2f%%, want ≤ 4%% and ≤ 2%%", 100*math.Sqrt(rel[0]), 100*math.Sqrt(rel[1]))
	}
}

// The slope doubles; forgetting must follow it.
func TestRLSRegimeChange(t *testing.T) {
	worstB, worstAll := 0, 0
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 3))
		r := NewRLS(RLSOptions{})
		for range 1000 {
			x := 200 + rng.Float64()*30000
			r.Update(x, gtStep(x)*(1+0.03*rng.NormFloat64()))
		}
		if a, b := r.Coef(); gtRelErr(a, gtA) > 0.05 || gtRelErr(b, gtB) > 0.03 {
			t.Fatalf("seed %d: before the change a=%.5f b=%.4g", seed, a, b)
		}
		trackedB, lastOff := -1, 0
		for i := range 3000 {
			x := 200 + rng.Float64()*30000
			r.Update(x, (gtA+2*gtB*x)*(1+0.03*rng.NormFloat64()))
			a, b := r.Coef()
			if gtRelErr(b, 2*gtB) <= 0.10 && trackedB < 0 {
				trackedB = i + 1
			}
			if gtRelErr(a, gtA) > 0.05 || gtRelErr(b, 2*gtB) > 0.05 {
				lastOff = i + 1
			}
		}
		if trackedB < 0 || trackedB > 300 {
			t.Errorf("seed %d: doubled slope within 10%% after %d samples, want ≤ 300", seed, trackedB)
		}
		if lastOff > 2000 {
			t.Errorf("seed %d: a or b still > 5%% off after %d samples, want ≤ 2000", seed, lastOff)
		}
		worstB, worstAll = max(worstB, trackedB), max(worstAll, lastOff)
	}
	t.Logf("b doubles (20 seeds, contexts 200..30k): b within 10%% after ≤ %d samples; a and b within 5%% for good after ≤ %d", worstB, worstAll)
}

func TestRLSIgnoresNonFinite(t *testing.T) {
	r := NewRLS(RLSOptions{})
	r.Update(math.NaN(), 1)
	r.Update(1, math.Inf(1))
	if r.N() != 0 {
		t.Fatalf("N=%d after non-finite input", r.N())
	}
}

func TestRLSNoAllocs(t *testing.T) {
	r := NewRLS(RLSOptions{})
	x := 0.0
	if n := testing.AllocsPerRun(1000, func() {
		x += 10
		r.Update(x, gtStep(x))
		r.Coef()
		r.StdErr()
	}); n != 0 {
		t.Fatalf("%v allocations per Update", n)
	}
}

func BenchmarkRLSUpdate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	xs := make([]float64, 1024)
	ys := make([]float64, 1024)
	for i := range xs {
		xs[i] = 200 + rng.Float64()*30000
		ys[i] = gtStep(xs[i]) * (1 + 0.03*rng.NormFloat64())
	}
	r := NewRLS(RLSOptions{})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Update(xs[i&1023], ys[i&1023])
	}
}
