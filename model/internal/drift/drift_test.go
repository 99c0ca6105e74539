package drift

import (
	"math"
	"testing"
	"time"
)

func TestFormatRaisesOnAFormatChangeNotATrickle(t *testing.T) {
	d := NewFormat(100, 0.5)
	for i := range 1000 {
		if ev := d.Add(i%20 == 0); ev == Raise {
			t.Fatalf("line %d: 5 %% damaged lines raised", i)
		}
	}
	var raised int
	for i := range 100 {
		if d.Add(true) == Raise {
			raised = i + 1
			break
		}
	}
	// The ring held lines 900-999, 5 of them bad; each malformed line pushes out the oldest,
	// and 900, 920 and 940 leave on the way: 5 + 48 - 3 = 50, half.
	if raised != 48 {
		t.Fatalf("raised after %d malformed lines, want 48", raised)
	}
	if bad, n := d.Counts(); bad != 50 || n != 100 {
		t.Fatalf("counts %d of %d, want 50 of 100", bad, n)
	}
	var cleared int
	for i := range 100 {
		if d.Add(false) == Clear {
			cleared = i + 1
			break
		}
	}
	// A run of 20 parsed lines (a fifth of the ring) says the cause is gone: the malformed
	// lines are forgotten, rather than waiting for them to leave the ring (88 lines).
	if cleared != 20 {
		t.Fatalf("cleared after %d clean lines, want 20", cleared)
	}
	if bad, _ := d.Counts(); bad != 0 {
		t.Fatalf("%d malformed lines remembered after the clean run", bad)
	}
	// A partial break (every third line: one kind of line of three) never makes such a run:
	// raised, it stays raised.
	d = NewFormat(100, 0.2)
	raisedAt := -1
	for i := range 1000 {
		switch d.Add(i%3 == 0) {
		case Raise:
			if raisedAt < 0 {
				raisedAt = i
			}
		case Clear:
			if raisedAt >= 0 {
				t.Fatalf("line %d: cleared while a third of the lines are malformed", i)
			}
		}
	}
	if raisedAt < 0 {
		t.Fatal("a third of the lines malformed never raised")
	}
}

func TestDropRaisesOnASustainedFallAndForgetsAfterAGap(t *testing.T) {
	o := Options{Window: 10, HalfLife: time.Hour, Warmup: 5, K: 1, H: 5, MinEffect: 0.03}
	d := NewDrop(o)
	ts := int64(0)
	feed := func(windows int, c func(i int) float64) (raised bool) {
		for i := range windows * o.Window {
			ts += int64(2 * time.Second)
			if _, full, ev := d.Add(ts, c(i)); full && ev == Raise {
				raised = true
			}
		}
		return raised
	}
	wobble := func(i int) float64 { return 3 + 0.2*float64(i/10%2) }
	if feed(50, wobble) {
		t.Fatal("a steady series raised")
	}
	if !feed(10, func(i int) float64 { return 2.4 }) {
		t.Fatal("a 25 % fall for 10 windows did not raise")
	}
	if math.Abs(d.Mean-2.4) > 1e-9 || !(d.Base > 2.9 && d.Base < 3.3) || d.RunLength() == 0 {
		t.Fatalf("detail figures: mean %.2f base %.2f run %d", d.Mean, d.Base, d.RunLength())
	}
	// After a gap the baseline forgot, the test warms up again before it can raise.
	ts += int64(ForgetHalfLives+1) * int64(time.Hour)
	if feed(o.Warmup, func(i int) float64 { return 2.4 }) {
		t.Fatal("raised during the warm-up after a long gap")
	}
}

func TestRegressionAsksToRelearnAfterALongAlarm(t *testing.T) {
	o := Options{Window: 10, HalfLife: time.Hour, Warmup: 5, K: 0.5, H: 5, MinEffect: 0.02}
	d := NewRegression(o, 10*time.Minute)
	ts := int64(0)
	var raises, learnsInAlarm int
	for i := range 5000 {
		ts += int64(2 * time.Second)
		r := 0.002 * float64(i%3-1)
		if i >= 1000 {
			r = 0.2 // 22 % slower
		}
		s := d.Add(ts, r)
		if s.Event == Raise {
			raises++
			if s.Learn {
				learnsInAlarm++
			}
		}
	}
	if raises == 0 || learnsInAlarm == 0 {
		t.Fatalf("raises %d, relearns in alarm %d: want both", raises, learnsInAlarm)
	}
}

// Retune changes the threshold from the next window and keeps the baseline; Discard drops the
// unfinished window, whose values then never reach a window mean.
func TestRetuneAndDiscard(t *testing.T) {
	o := Options{Window: 10, HalfLife: time.Hour, Warmup: 5, K: 1, H: 5, MinEffect: 0.03}
	for _, retune := range []bool{false, true} {
		d := NewDrop(o)
		ts := int64(0)
		feed := func(n int, c float64) (raised bool) {
			for range n {
				ts += int64(2 * time.Second)
				if _, full, ev := d.Add(ts, c); full && ev == Raise {
					raised = true
				}
			}
			return raised
		}
		for i := range 50 {
			feed(10, 3+0.2*float64(i%2))
		}
		if retune {
			o2 := o
			o2.H = 1e6
			d.Retune(o2)
		}
		if raised := feed(100, 2.4); raised == retune {
			t.Errorf("retuned %v: a 25 %% fall raised %v", retune, raised)
		}
	}
	d := NewDrop(o)
	d.Add(1, 3)
	d.Add(2, 3)
	d.Discard()
	for i := range 9 {
		if _, full, _ := d.Add(int64(3+i), 2); full {
			t.Fatalf("a window closed after %d values: the discarded ones counted", i+1)
		}
	}
	if m, full, _ := d.Add(12, 2); !full || m != 2 {
		t.Errorf("the window after Discard: mean %v, full %v; want 2 of its own values", m, full)
	}
	f := NewFormat(20, 0.5)
	f.Retune(0.99)
	for i := range 20 {
		if f.Add(i%10 != 0) == Raise { // 90 % malformed: under 99 %
			t.Fatal("raised under the retuned fraction")
		}
	}
}
