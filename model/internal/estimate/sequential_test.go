package estimate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// runLength feeds N(shift, 1) values, signed towards the detected side,
// until the CUSUM alarms.
func cusumRunLength(rng *rand.Rand, c CUSUM, shift float64) int {
	sign := 1.0
	if c.side == SideDown {
		sign = -1
	}
	for n := 1; ; n++ {
		if c.Update(sign * (rng.NormFloat64() + shift)) {
			return n
		}
	}
}

func cusumMonteCarloARL(rng *rand.Rand, k, h, shift float64, runs int, side Side) float64 {
	total := 0
	for range runs {
		total += cusumRunLength(rng, NewCUSUM(CUSUMOptions{K: k, H: h, Side: side}), shift)
	}
	return float64(total) / float64(runs)
}

// Siegmund's approximation against simulation: within 20 %.
func TestCUSUMARLMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	cases := []struct{ k, h, shift float64 }{
		{0.5, 4, 0}, {0.5, 5, 0}, {1, 3, 0}, {0.25, 8, 0}, // in control
		{0.5, 4, 1}, {0.5, 5, 2}, {1, 3, 1.5}, // shifted
	}
	for i, c := range cases {
		side := Side(i % 2)
		want := CUSUMARL(c.shift, c.k, c.h)
		runs := min(3000, int(2e6/want))
		got := cusumMonteCarloARL(rng, c.k, c.h, c.shift, runs, side)
		t.Logf("k=%.2f h=%.1f shift=%.1f: Siegmund %.1f, Monte Carlo %.1f (%d runs)", c.k, c.h, c.shift, want, got, runs)
		if math.Abs(got/want-1) > 0.20 {
			t.Errorf("k=%v h=%v shift=%v: Monte Carlo ARL %.1f vs Siegmund %.1f", c.k, c.h, c.shift, got, want)
		}
	}
}

// The documented defaults: ARL0 ≥ 10^5 windows, by formula and by
// simulation (100 in-control runs of ~10^5 windows each).
func TestCUSUMDefaultARL0(t *testing.T) {
	want := CUSUMARL(0, DefaultCUSUMK, DefaultCUSUMH)
	if want < 1e5 {
		t.Fatalf("default ARL0 %.0f < 1e5", want)
	}
	if testing.Short() {
		t.Skip("Monte Carlo of 1.4e7 windows")
	}
	rng := rand.New(rand.NewPCG(7, 7))
	got := cusumMonteCarloARL(rng, DefaultCUSUMK, DefaultCUSUMH, 0, 100, SideDown)
	t.Logf("default ARL0: Siegmund %.0f windows, Monte Carlo %.0f (100 runs, ±10%%)", want, got)
	if got < 1e5 || math.Abs(got/want-1) > 0.20 {
		t.Errorf("default ARL0 by Monte Carlo %.0f, Siegmund %.0f", got, want)
	}
}

// Detection targets of sequential.go, at the nominal window noise and at
// twice it: P(alarm within the deadline) ≥ 99 %.
func TestCUSUMDefaultDetection(t *testing.T) {
	sigmaW := 0.15 / math.Sqrt(DefaultCUSUMWindow)
	rng := rand.New(rand.NewPCG(3, 1))
	for _, c := range []struct {
		drop     float64
		deadline int
	}{{0.10, 30}, {0.30, 5}} {
		for _, infl := range []float64{1, 2} {
			shift := c.drop / (sigmaW * infl)
			const runs = 20000
			within, total := 0, 0
			for range runs {
				n := cusumRunLength(rng, NewCUSUM(CUSUMOptions{}), shift)
				total += n
				if n <= c.deadline {
					within++
				}
			}
			p := float64(within) / runs
			t.Logf("%.0f%% drop, σ_w×%.0f (shift %.2fσ): ARL1 Siegmund %.2f, Monte Carlo %.2f windows; %.2f%% within %d",
				100*c.drop, infl, shift, CUSUMARL(shift, DefaultCUSUMK, DefaultCUSUMH), float64(total)/runs, 100*p, c.deadline)
			if p < 0.99 {
				t.Errorf("%.0f%% drop at σ_w×%.0f: only %.2f%% detected within %d windows", 100*c.drop, infl, 100*p, c.deadline)
			}
		}
	}
}

// End to end on raw samples: commit length every 2 s with CV 0.15, window
// means of 30, standardised against the known baseline; a 10 % drop.
func TestCUSUMCommitLengthDrop(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 2))
	const base = 3.0
	sigmaW := base * 0.15 / math.Sqrt(DefaultCUSUMWindow)
	c, bm := NewCUSUM(CUSUMOptions{}), NewBlockMean(0)
	windows, alarmAt := 0, -1
	for i := 0; i < 30*600 && alarmAt < 0; i++ {
		level := base
		if i >= 30*500 { // drop after 500 windows
			level = 0.9 * base
		}
		m, full := bm.Add(level * (1 + 0.15*rng.NormFloat64()))
		if !full {
			continue
		}
		windows++
		if c.Update((m-base)/sigmaW) && alarmAt < 0 {
			alarmAt = windows
		}
	}
	if alarmAt <= 500 || alarmAt > 530 {
		t.Fatalf("alarm at window %d, want within 30 windows after 500", alarmAt)
	}
	t.Logf("10%% drop at window 500: alarm at window %d, change-point estimate %d windows back", alarmAt, c.RunLength())
	if back := alarmAt - c.RunLength(); back < 495 || back > 505 {
		t.Errorf("change-point estimate window %d, want ≈500", back)
	}
}

func TestCUSUMMechanics(t *testing.T) {
	c := NewCUSUM(CUSUMOptions{K: 0.5, H: 2})
	c.Update(1) // a rise: nothing for SideDown
	if c.Stat() != 0 || c.RunLength() != 0 {
		t.Fatalf("after +1: S=%v run=%d", c.Stat(), c.RunLength())
	}
	c.Update(-1.5) // S = 1
	c.Update(-2.5) // S = 3 > 2
	if !c.Alarm() || c.Stat() != 3 || c.RunLength() != 2 {
		t.Fatalf("S=%v alarm=%v run=%d", c.Stat(), c.Alarm(), c.RunLength())
	}
	c.Update(math.NaN())
	if c.Stat() != 3 {
		t.Fatalf("NaN changed S to %v", c.Stat())
	}
	c.Update(-100) // capped at 2h
	if c.Stat() != 4 {
		t.Fatalf("S=%v, want the 2h cap 4", c.Stat())
	}
	c.Reset()
	if c.Stat() != 0 || c.Alarm() || c.RunLength() != 0 {
		t.Fatal("reset")
	}
	up := NewCUSUM(CUSUMOptions{Side: SideUp})
	if up.k != DefaultCUSUMK || up.h != DefaultCUSUMH {
		t.Fatalf("defaults: k=%v h=%v", up.k, up.h)
	}
	up.Update(3)
	if up.Stat() != 2.5 {
		t.Fatalf("SideUp: S=%v after +3", up.Stat())
	}
}

func TestCUSUMARLFormula(t *testing.T) {
	// Continuity through Δ = 0 and the textbook in-control value.
	k, h := 0.5, 4.0
	b := h + 1.166
	if got := CUSUMARL(k, k, h); math.Abs(got-b*b) > 1e-9 {
		t.Fatalf("Δ=0: %v, want %v", got, b*b)
	}
	for _, d := range []float64{1e-3, 1e-5, -1e-5, -1e-3} {
		lo, hi := CUSUMARL(k+d, k, h), b*b
		if math.Abs(lo/hi-1) > 3*math.Abs(d)*b {
			t.Fatalf("Δ=%v: %v far from %v", d, lo, hi)
		}
	}
	if got := CUSUMARL(0, 0.5, 4); math.Abs(got-338.1) > 0.5 {
		t.Fatalf("ARL0(0.5, 4) = %v, want ≈338", got)
	}
	for _, arl := range []float64{100, 1e4, 1e5, 1e7} {
		h := CUSUMThreshold(0.5, arl)
		if got := CUSUMARL(0, 0.5, h); math.Abs(got/arl-1) > 1e-9 {
			t.Fatalf("threshold for %v: h=%v gives %v", arl, h, got)
		}
	}
	t.Logf("h for ARL0 = 1e5 at k = 0.5: %.3f", CUSUMThreshold(0.5, 1e5))
}

func TestBlockMean(t *testing.T) {
	b := NewBlockMean(3)
	for i, v := range []float64{1, 2, math.NaN(), 3, 4} {
		m, full := b.Add(v)
		if (i == 3) != full || (full && m != 2) {
			t.Fatalf("sample %d: mean %v full %v", i, m, full)
		}
	}
	if b.Pending() != 1 {
		t.Fatalf("pending %d", b.Pending())
	}
}

func TestSequentialNoAllocs(t *testing.T) {
	c, b := NewCUSUM(CUSUMOptions{}), NewBlockMean(0)
	if n := testing.AllocsPerRun(1000, func() {
		if m, full := b.Add(2.9); full {
			c.Update(m - 3)
		}
		c.Update(-0.1)
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

func BenchmarkCUSUMUpdate(b *testing.B) {
	c := NewCUSUM(CUSUMOptions{})
	zs := make([]float64, 1024)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range zs {
		zs[i] = rng.NormFloat64()
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c.Update(zs[i&1023])
	}
}

// Close ends a block early with the mean of what it holds, and an empty block gives nothing.
func TestBlockMeanClose(t *testing.T) {
	b := NewBlockMean(30)
	if _, ok := b.Close(); ok {
		t.Error("an empty block closed")
	}
	b.Add(2)
	b.Add(4)
	if m, ok := b.Close(); !ok || m != 3 || b.Pending() != 0 {
		t.Errorf("Close: %v %v, %d pending", m, ok, b.Pending())
	}
}

// Retune keeps the statistic and judges it against the new threshold.
func TestCUSUMRetune(t *testing.T) {
	c := NewCUSUM(CUSUMOptions{K: 1, H: 5, Side: SideUp})
	for range 4 {
		c.Update(3) // S = 2, 4, 6, 8
	}
	if !c.Alarm() {
		t.Fatal("no alarm at S = 8 > 5")
	}
	c.Retune(1, 10)
	if c.Alarm() || c.Stat() != 8 {
		t.Errorf("retuned to h 10: alarm %v at S %v", c.Alarm(), c.Stat())
	}
	c.Retune(0, 0) // the defaults
	if c.k != DefaultCUSUMK || c.h != DefaultCUSUMH {
		t.Errorf("defaults: k %v h %v", c.k, c.h)
	}
}
