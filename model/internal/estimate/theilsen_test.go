package estimate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteTheilSen sorts everything: the reference.
func bruteTheilSen(xs, ys []float64, minDX float64) (a, b float64) {
	var slopes []float64
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			if dx := xs[j] - xs[i]; math.Abs(dx) >= minDX {
				slopes = append(slopes, (ys[j]-ys[i])/dx)
			}
		}
	}
	med := func(v []float64) float64 {
		slices.Sort(v)
		n := len(v)
		if n%2 == 1 {
			return v[n/2]
		}
		return 0.5 * (v[n/2-1] + v[n/2])
	}
	b = med(slopes)
	r := make([]float64, len(xs))
	for i := range xs {
		r[i] = ys[i] - b*xs[i]
	}
	return med(r), b
}

func TestTheilSenMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for _, n := range []int{2, 3, 4, 7, 50, 256} {
		ts := NewTheilSen(TheilSenOptions{Capacity: n})
		xs, ys := make([]float64, n), make([]float64, n)
		for i := range n {
			x := math.Round(200 + rng.Float64()*30000)
			if i%5 == 0 && i > 0 {
				x = xs[i-1] // duplicate x: that pair is skipped
			}
			y := gtStep(x) * (1 + 0.03*rng.NormFloat64())
			xs[i], ys[i] = x, y
			ts.Add(x, y)
		}
		a, b, ok := ts.Fit()
		wa, wb := bruteTheilSen(xs, ys, 1)
		if !ok || a != wa || b != wb {
			t.Fatalf("n=%d: got (%v, %v, %v), want (%v, %v)", n, a, b, ok, wa, wb)
		}
	}
}

// 25 % of the points at 10×: the median ignores them.
func TestTheilSenRobust(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	ts := NewTheilSen(TheilSenOptions{})
	for i := range 400 { // more than the capacity: the ring wraps
		x := 200 + rng.Float64()*30000
		y := gtStep(x) * (1 + 0.03*rng.NormFloat64())
		if i%4 == 0 {
			y *= 10
		}
		ts.Add(x, y)
	}
	if ts.Len() != DefaultTheilSenCapacity {
		t.Fatalf("len %d", ts.Len())
	}
	a, b, ok := ts.Fit()
	t.Logf("25%% outliers at 10×: a=%.5f (%.1f%%) b=%.4g (%.2f%%)", a, 100*gtRelErr(a, gtA), b, 100*gtRelErr(b, gtB))
	if !ok || gtRelErr(b, gtB) > 0.05 || gtRelErr(a, gtA) > 0.25 {
		t.Fatalf("a=%v b=%v ok=%v", a, b, ok)
	}
}

// Clean data, the 13..3,900-token ramp: the robust fit is also accurate.
func TestTheilSenRecovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	ts := NewTheilSen(TheilSenOptions{Capacity: 50})
	for i := range 50 {
		x := 13 + float64(i)*(3900-13)/49
		ts.Add(x, gtStep(x)*(1+0.03*rng.NormFloat64()))
	}
	a, b, _ := ts.Fit()
	t.Logf("13..3900 tokens, 50 points: a %.2f%% b %.2f%% off", 100*gtRelErr(a, gtA), 100*gtRelErr(b, gtB))
	if gtRelErr(a, gtA) > 0.05 || gtRelErr(b, gtB) > 0.05 {
		t.Fatalf("a=%v b=%v", a, b)
	}
}

func TestTheilSenDegenerate(t *testing.T) {
	ts := NewTheilSen(TheilSenOptions{Capacity: 8})
	if _, _, ok := ts.Fit(); ok {
		t.Fatal("empty fit ok")
	}
	for range 5 {
		ts.Add(4000, 0.1)
		ts.Add(4000.5, 0.2) // closer than MinDX
	}
	ts.Add(math.NaN(), 1)
	if _, _, ok := ts.Fit(); ok || ts.Len() != 8 {
		t.Fatalf("constant x: ok=%v len=%d", ok, ts.Len())
	}
	ts.Reset()
	if ts.Len() != 0 || ts.Cap() != 8 {
		t.Fatal("reset")
	}
}

func TestTheilSenNoAllocs(t *testing.T) {
	ts := NewTheilSen(TheilSenOptions{})
	x := 0.0
	if n := testing.AllocsPerRun(20, func() {
		for range 50 {
			x += 37
			ts.Add(x, gtStep(x))
		}
		ts.Fit()
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

func BenchmarkTheilSenFit256(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	ts := NewTheilSen(TheilSenOptions{})
	for range 256 {
		x := 200 + rng.Float64()*30000
		ts.Add(x, gtStep(x)*(1+0.03*rng.NormFloat64()))
	}
	b.ReportAllocs()
	for b.Loop() {
		ts.Fit()
	}
}

// TestTheilSenSharedScratch: fits that share one scratch buffer, one after another, give
// exactly what each gives with its own.
func TestTheilSenSharedScratch(t *testing.T) {
	var shared []float64
	rng := rand.New(rand.NewPCG(7, 7))
	for range 5 {
		own := NewTheilSen(TheilSenOptions{})
		sh := NewTheilSen(TheilSenOptions{Scratch: &shared})
		for range 100 + rng.IntN(100) {
			x := rng.Float64() * 30000
			y := gtStep(x) * (1 + 0.05*rng.NormFloat64())
			own.Add(x, y)
			sh.Add(x, y)
		}
		a1, b1, ok1 := own.Fit()
		a2, b2, ok2 := sh.Fit()
		if a1 != a2 || b1 != b2 || ok1 != ok2 {
			t.Fatalf("shared scratch: (%v, %v, %v), own: (%v, %v, %v)", a2, b2, ok2, a1, b1, ok1)
		}
	}
	if len(shared) == 0 {
		t.Fatal("the shared buffer was not used")
	}
}
