package slowdrift

import (
	"math/rand/v2"
	"testing"
)

// feed adds n samples of mean(i) with noise sd and returns the sample index of the first
// Raise and of the first Clear (-1 when none).
func feed(d *Detector, rng *rand.Rand, from, n int, sd float64, mean func(i int) float64) (raise, clear int) {
	raise, clear = -1, -1
	for i := from; i < from+n; i++ {
		switch d.Add(mean(i) + sd*rng.NormFloat64()) {
		case Raise:
			if raise < 0 {
				raise = i
			}
		case Clear:
			if clear < 0 {
				clear = i
			}
		}
	}
	return raise, clear
}

const warm = 150 * (36 + 18) // the default warm-up: 36 half-hour means after the delay

func TestSteadyNoAlarm(t *testing.T) {
	d := New(Options{Block: 150, PerValue: 1})
	r, _ := feed(&d, rand.New(rand.NewPCG(1, 1)), 0, 200000, 0.6, func(int) float64 { return 4 })
	if r >= 0 {
		t.Errorf("raised at sample %d on a steady mean", r)
	}
}

// A drift the learning baseline would follow: 4 → 3.52 (12 %) over 5,400 samples (3 h at 2 s).
// It is raised once the half-hour mean is MinDrop below the start, and cleared after recovery.
func TestSlowDriftRaisedAndCleared(t *testing.T) {
	d := New(Options{Block: 150, PerValue: 1})
	rng := rand.New(rand.NewPCG(2, 2))
	if r, _ := feed(&d, rng, 0, warm, 0.6, func(int) float64 { return 4 }); r >= 0 {
		t.Fatalf("raised during warm-up at %d", r)
	}
	ramp := func(i int) float64 { return 4 * (1 - 0.12*min(1, float64(i-warm)/5400)) }
	r, _ := feed(&d, rng, warm, 8000, 0.6, ramp)
	// The half-hour mean (900 samples) is 7 % down when the ramp is at ~7.5 %: sample 3,400.
	if r < 0 || r-warm < 2500 || r-warm > 4500 {
		t.Fatalf("raised at %d samples into the drift, want about 3,400", r-warm)
	}
	if !d.Alarm() {
		t.Fatal("alarm not held while the drop lasts")
	}
	_, c := feed(&d, rng, warm+8000, 3000, 0.6, func(int) float64 { return 4 })
	if c < 0 || d.Alarm() {
		t.Errorf("not cleared after recovery (clear %d, alarm %v)", c, d.Alarm())
	}
}

// The spread of half-hour means sets the bar: a 10 % fall where they swing by 5 % is not
// raised; a 30 % one is.
func TestSpreadSetsTheBar(t *testing.T) {
	for _, c := range []struct {
		drop float64
		want bool
	}{{0.10, false}, {0.30, true}} {
		d := New(Options{Block: 150, PerValue: 1})
		rng := rand.New(rand.NewPCG(3, 3))
		level := 4.0
		wander := func(i int) float64 { // a new level every 150 samples: text of another kind
			if i%150 == 0 {
				level = 4 * (1 + 0.12*rng.NormFloat64())
			}
			return level
		}
		feed(&d, rng, 0, warm*2, 0.3, wander)
		r, _ := feed(&d, rng, warm*2, 6000, 0.3, func(i int) float64 { return wander(i) * (1 - c.drop) })
		if (r >= 0) != c.want {
			t.Errorf("%.0f %% fall against 5 %% spread: raised %v (at %d), want %v", 100*c.drop, r >= 0, r, c.want)
		}
	}
}

// Retune takes new thresholds and keeps the baseline: the drift that raised under the
// defaults raises nothing once the fall it needs is beyond it, and no warm-up starts again.
func TestRetune(t *testing.T) {
	for _, minDrop := range []float64{0, 0.5} {
		d := New(Options{Block: 150, PerValue: 1})
		rng := rand.New(rand.NewPCG(2, 2))
		feed(&d, rng, 0, warm, 0.6, func(int) float64 { return 4 })
		d.Retune(Options{MinDrop: minDrop, Block: 1}) // Block shapes the blocks: it stays
		if d.o.Block != 150 {
			t.Fatalf("Retune changed the block size to %d", d.o.Block)
		}
		r, _ := feed(&d, rng, warm, 8000, 0.6, func(i int) float64 { return 4 * (1 - 0.12*min(1, float64(i-warm)/5400)) })
		if raised := r >= 0; raised != (minDrop == 0) {
			t.Errorf("MinDrop %g: raised %v (at %d)", minDrop, raised, r-warm)
		}
	}
}
