package estimate

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

const nsPerSec = int64(time.Second)

func TestEWMAFirstSampleAndConstant(t *testing.T) {
	e := NewEWMA(time.Minute)
	if !math.IsNaN(e.Mean()) || e.Var() != 0 || e.N() != 0 {
		t.Fatalf("empty: mean %v var %v n %d", e.Mean(), e.Var(), e.N())
	}
	e.Update(100*nsPerSec, 2.9)
	if e.Mean() != 2.9 || e.Var() != 0 || e.EffectiveN() != 1 {
		t.Fatalf("one sample: mean %v var %v neff %v", e.Mean(), e.Var(), e.EffectiveN())
	}
	for i := range 100 {
		e.Update(int64(101+i)*nsPerSec, 2.9)
	}
	if math.Abs(e.Mean()-2.9) > 1e-12 || e.Var() > 1e-20 {
		t.Fatalf("constant: mean %v var %v", e.Mean(), e.Var())
	}
}

// Regular sampling: identical to the classic EWMA with α = 1 − 2^(−Δt/H)
// once the start-up weight has settled.
func TestEWMAMatchesClassic(t *testing.T) {
	e := NewEWMA(10 * time.Second)
	alpha := 1 - math.Exp2(-2.0/10)
	rng := rand.New(rand.NewPCG(1, 2))
	classic := 0.0
	for i := range 2000 {
		v := 3 + rng.NormFloat64()
		e.Update(int64(i)*2*nsPerSec, v)
		if i == 0 {
			classic = v
		} else {
			classic += alpha * (v - classic)
		}
	}
	if d := math.Abs(e.Mean() - classic); d > 1e-9 {
		t.Fatalf("mean %v, classic %v", e.Mean(), classic)
	}
	d := math.Exp2(-2.0 / 10)
	if want := (1 + d) / (1 - d); math.Abs(e.EffectiveN()-want) > 1e-6 {
		t.Fatalf("effective n %v, want %v", e.EffectiveN(), want)
	}
}

// The half-life is in time: a sample one half-life old weighs half as much
// as a new one, whatever the spacing.
func TestEWMAHalfLifeIrregular(t *testing.T) {
	e := NewEWMA(time.Minute)
	e.Update(0, 0)
	e.Update(60*nsPerSec, 1) // weights 1/2 and 1
	if want := 1 / 1.5; math.Abs(e.Mean()-want) > 1e-12 {
		t.Fatalf("mean %v, want %v", e.Mean(), want)
	}
	// Same timestamp: a plain average with the pending weights.
	e.Update(60*nsPerSec, 1)
	if want := 2 / 2.5; math.Abs(e.Mean()-want) > 1e-12 {
		t.Fatalf("mean %v, want %v", e.Mean(), want)
	}
	// Out of order: treated as simultaneous, time does not go back.
	e.Update(30*nsPerSec, 1)
	if want := 3 / 3.5; math.Abs(e.Mean()-want) > 1e-12 || e.Last() != 60*nsPerSec {
		t.Fatalf("mean %v want %v, last %d", e.Mean(), want, e.Last())
	}
	// After a long gap the old samples are gone.
	e.Update(3600*nsPerSec, 5)
	if math.Abs(e.Mean()-5) > 1e-15 {
		t.Fatalf("after an hour: mean %v", e.Mean())
	}
}

// Variance: unbiased for the weights, so the mean of Var over many
// independent runs is the true variance even with few samples.
func TestEWMAVarianceUnbiased(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const runs = 20000
	var sum, sumStd float64
	for range runs {
		e := NewEWMA(30 * time.Second)
		var tm int64
		for range 12 {
			tm += int64(rng.IntN(5)+1) * nsPerSec // irregular
			e.Update(tm, 0.15*rng.NormFloat64())
		}
		sum += e.Var()
		sumStd += e.Std()
	}
	if got := sum / runs; math.Abs(got/0.0225-1) > 0.03 {
		t.Fatalf("mean variance %v, want 0.0225 within 3%%", got)
	}
}

// Short and long instances on commit length: the short one follows a drop,
// the long one stays near the baseline.
func TestEWMAShortLong(t *testing.T) {
	short, long := NewEWMA(2*time.Minute), NewEWMA(2*time.Hour)
	rng := rand.New(rand.NewPCG(8, 8))
	var tm int64
	for range 3600 { // two hours at 2 s, commit 3.0
		tm += 2 * nsPerSec
		v := 3 * (1 + 0.15*rng.NormFloat64())
		short.Update(tm, v)
		long.Update(tm, v)
	}
	for range 300 { // ten minutes at 2.4
		tm += 2 * nsPerSec
		v := 2.4 * (1 + 0.15*rng.NormFloat64())
		short.Update(tm, v)
		long.Update(tm, v)
	}
	// The long mean weighs its 130 minutes of history (not an infinite
	// past): the last 10 minutes carry (1−2^(−10/120))/(1−2^(−130/120)).
	frac := (1 - math.Exp2(-10.0/120)) / (1 - math.Exp2(-130.0/120))
	wantLong := 3 - 0.6*frac
	if math.Abs(short.Mean()-2.4) > 0.05 || math.Abs(long.Mean()-wantLong) > 0.02 {
		t.Fatalf("short %.3f (want ≈2.4), long %.3f (want ≈%.3f)", short.Mean(), long.Mean(), wantLong)
	}
}

func TestEWMANoAllocs(t *testing.T) {
	e := NewEWMA(time.Minute)
	var tm int64
	if n := testing.AllocsPerRun(1000, func() {
		tm += 2 * nsPerSec
		e.Update(tm, 2.5)
		e.Std()
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

func BenchmarkEWMAUpdate(b *testing.B) {
	e := NewEWMA(time.Minute)
	var tm int64
	b.ReportAllocs()
	for b.Loop() {
		tm += 2 * nsPerSec
		e.Update(tm, 2.5)
	}
}

// The decay of a repeated gap is reused: the estimates must be bit for bit those of computing
// 2^(−Δt/H) on every update.
func TestEWMACachedDecayExact(t *testing.T) {
	const h = float64(90 * time.Second)
	e := NewEWMA(90 * time.Second)
	var w, w2, mean, s float64
	rng := rand.New(rand.NewPCG(3, 4))
	var tm, last int64
	for i := range 5000 {
		if i > 0 {
			tm += []int64{0, 1, 2, 2, 2, 3, 7}[rng.IntN(7)] * nsPerSec
		}
		v := 4 + rng.NormFloat64()
		e.Update(tm, v)
		d := 1.0
		if i > 0 && tm > last {
			d = math.Exp2(-float64(tm-last) / h)
		}
		last = tm
		w = d*w + 1
		w2 = d*d*w2 + 1
		delta := v - mean
		mean += delta / w
		s = d*s + delta*(v-mean)
		if s < 0 {
			s = 0
		}
		if e.Mean() != mean || e.w != w || e.w2 != w2 || e.s != s {
			t.Fatalf("update %d: mean %v w %v, want %v %v", i, e.Mean(), e.w, mean, w)
		}
	}
}
