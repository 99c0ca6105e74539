package estimate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A burst of consecutive samples at 10× (steps stalled behind a prefill,
// say) is not a regime change: σ̂ may grow only ×1.107 per sample, so the
// burst stays down-weighted.
func TestRLSOutlierBurst(t *testing.T) {
	for _, burst := range []int{5, 10, 15, 30} {
		var worst float64
		for seed := range uint64(20) {
			rng := rand.New(rand.NewPCG(seed, 6))
			clean := NewRLS(RLSOptions{})
			for range 1000 {
				x := 200 + rng.Float64()*30000
				clean.Update(x, gtStep(x)*(1+0.03*rng.NormFloat64()))
			}
			dirty := clean // value type: an independent copy
			for i := range 500 {
				x := 200 + rng.Float64()*30000
				y := gtStep(x) * (1 + 0.03*rng.NormFloat64())
				clean.Update(x, y)
				if i < burst {
					y *= 10
				}
				dirty.Update(x, y)
				a0, b0 := clean.Coef()
				a1, b1 := dirty.Coef()
				worst = max(worst, gtRelErr(a1, a0), gtRelErr(b1, b0))
			}
		}
		t.Logf("%2d consecutive 10× outliers: worst change of a or b vs the clean twin %.2f%%", burst, 100*worst)
		if limit := map[int]float64{5: 0.02, 10: 0.04}[burst]; limit > 0 && worst > limit {
			t.Errorf("burst of %d moved the fit by %.2f%%, want < %.0f%%", burst, 100*worst, 100*limit)
		}
	}
}

// One sample at 10× its true step must barely move the fit.
func TestRLSOutlier(t *testing.T) {
	var worst float64
	for seed := range uint64(20) {
		for _, at := range []int{10, 25, 40, 49} {
			rng := rand.New(rand.NewPCG(seed, 5))
			clean, dirty := NewRLS(RLSOptions{}), NewRLS(RLSOptions{})
			for i := range 50 {
				x := 13 + float64(i)*(3900-13)/49
				y := gtStep(x) * (1 + 0.03*rng.NormFloat64())
				clean.Update(x, y)
				if i == at {
					y *= 10
				}
				z := dirty.Update(x, y)
				if i == at && z < 20 {
					t.Errorf("seed %d: outlier z=%.1f, want large", seed, z)
				}
			}
			a0, b0 := clean.Coef()
			a1, b1 := dirty.Coef()
			d := max(gtRelErr(a1, a0), gtRelErr(b1, b0))
			worst = max(worst, d)
			if d > 0.02 {
				t.Errorf("seed %d outlier at %d: a %.5f→%.5f b %.4g→%.4g (%.2f%%)", seed, at, a0, a1, b0, b1, 100*d)
			}
		}
	}
	t.Logf("one 10× outlier: worst change of a or b %.3f%%", 100*worst)
}

func allFinite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// 10,000 samples at one context, then the context moves: plain exponential
// forgetting would have inflated P by λ^-10000 = e^100.
func TestRLSWindup(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	r := NewRLS(RLSOptions{})
	for range 200 {
		x := 200 + rng.Float64()*8000
		r.Update(x, gtStep(x)*(1+0.03*rng.NormFloat64()))
	}
	check := func(phase string, i int) {
		a, b := r.Coef()
		sa, sb := r.StdErr()
		if !allFinite(a, b, sa, sb, r.R2(), r.ResidualScale()) || gtRelErr(b, gtB) > 1 || math.Abs(a) > 1 {
			t.Fatalf("%s sample %d: a=%g b=%g se=(%g, %g)", phase, i, a, b, sa, sb)
		}
	}
	for i := range 10000 {
		r.Update(4000, gtStep(4000)*(1+0.03*rng.NormFloat64()))
		check("constant", i)
	}
	a, b := r.Coef()
	_, sb := r.StdErr()
	t.Logf("after 10k samples at 4000 tokens: a %.2f%% b %.2f%% off, se(b)=%.3g", 100*gtRelErr(a, gtA), 100*gtRelErr(b, gtB), sb)
	var maxJump float64
	prevB := b
	for i := range 100 {
		x := 200 + rng.Float64()*30000
		r.Update(x, gtStep(x)*(1+0.03*rng.NormFloat64()))
		check("moving", i)
		_, b := r.Coef()
		maxJump = max(maxJump, math.Abs(b-prevB)/gtB)
		prevB = b
	}
	a, b = r.Coef()
	t.Logf("then 100 moving samples: largest one-step change of b %.1f%% of b; final a %.2f%% b %.2f%% off", 100*maxJump, 100*gtRelErr(a, gtA), 100*gtRelErr(b, gtB))
	if maxJump > 0.5 || gtRelErr(a, gtA) > 0.1 || gtRelErr(b, gtB) > 0.05 {
		t.Errorf("after wind-up: jump %.2f, a=%.5f b=%.4g", maxJump, a, b)
	}
}

// The context jitters by a few tokens for hours: the slope must not wander.
func TestRLSBarelyMoving(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	r := NewRLS(RLSOptions{})
	for range 300 {
		x := 200 + rng.Float64()*8000
		r.Update(x, gtStep(x)*(1+0.03*rng.NormFloat64()))
	}
	var worst float64
	for i := range 10000 {
		x := 4000 + 10*rng.Float64()
		r.Update(x, gtStep(x)*(1+0.03*rng.NormFloat64()))
		a, b := r.Coef()
		if !allFinite(a, b) {
			t.Fatalf("sample %d: a=%g b=%g", i, a, b)
		}
		worst = max(worst, gtRelErr(b, gtB))
	}
	a, b := r.Coef()
	t.Logf("context 4000..4010 for 10k samples: worst b error %.1f%%, final a %.2f%% b %.2f%%, prediction at 4005 %.2f%% off",
		100*worst, 100*gtRelErr(a, gtA), 100*gtRelErr(b, gtB), 100*gtRelErr(r.Predict(4005), gtStep(4005)))
	if worst > 0.05 {
		t.Errorf("slope wandered %.1f%% while the context barely moved", 100*worst)
	}
}

// Hostile input: zero and huge contexts, long constant stretches, zero and
// negative steps, jumps of the whole scale. Nothing may become NaN/Inf.
func TestRLSStress(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	for _, abs := range []bool{false, true} {
		r := NewRLS(RLSOptions{AbsoluteNoise: abs})
		x := 0.0
		for i := range 200000 {
			switch rng.IntN(1000) {
			case 0:
				x = 0
			case 1:
				x = 2e5
			case 2, 3, 4:
				x = rng.Float64() * 2e5
			}
			y := gtStep(x) * (1 + 0.03*rng.NormFloat64())
			switch rng.IntN(500) {
			case 0:
				y = 0
			case 1:
				y = -y
			case 2:
				y *= 1000
			}
			if i > 100000 {
				y *= 50 // the step model changes scale entirely
			}
			z := r.Update(x, y)
			a, b := r.Coef()
			sa, sb := r.StdErr()
			if !allFinite(z, a, b, sa, sb, r.R2(), r.ResidualScale(), r.Predict(x)) {
				t.Fatalf("abs=%v sample %d: z=%v a=%v b=%v se=(%v,%v)", abs, i, z, a, b, sa, sb)
			}
		}
		a, b := r.Coef()
		t.Logf("abs=%v after the scale change: a %.1f%% b %.1f%% off", abs, 100*gtRelErr(a, 50*gtA), 100*gtRelErr(b, 50*gtB))
	}
}
