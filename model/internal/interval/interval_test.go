package interval

import (
	"math"
	"math/rand/v2"
	"testing"
)

// lines simulates consecutive decode lines of one rank at interval n: the context grows by
// n × commit × running (truncated to whole tokens per request, as engines print it), and with
// probability change a request leaves and another with an unrelated prompt joins.
func feed(l *Learner, rng *rand.Rand, n, lines int, running int, change float64) {
	ctx := make([]float64, running)
	for i := range ctx {
		ctx[i] = float64(200 + rng.IntN(8000))
	}
	total := func() float64 {
		s := 0.0
		for _, c := range ctx {
			s += math.Floor(c)
		}
		return s
	}
	prev := total()
	for range lines {
		commit := 1 + 6*rng.Float64()
		for i := range ctx {
			ctx[i] += float64(n) * commit
		}
		if rng.Float64() < change {
			ctx[rng.IntN(running)] = float64(200 + rng.IntN(8000))
		}
		cur := total()
		l.Observe(cur-prev, math.Round(commit*100)/100, float64(running))
		prev = cur
	}
}

func TestLearnsInterval(t *testing.T) {
	for _, c := range []struct {
		n, running int
		change     float64
	}{{10, 1, 0}, {40, 1, 0}, {100, 1, 0}, {1, 1, 0}, {40, 8, 0.3}, {250, 4, 0.4}, {3, 16, 0.2}} {
		var l Learner
		feed(&l, rand.New(rand.NewPCG(uint64(c.n), 1)), c.n, 200, c.running, c.change)
		if got, ok := l.Interval(); !ok || got != c.n {
			t.Errorf("interval %d, %d running, %.0f %% batch changes: learned %d (ok %v), want %d",
				c.n, c.running, 100*c.change, got, ok, c.n)
		}
	}
}

// Batch changes alone (every pair unrelated) must never produce an interval.
func TestNoIntervalFromNoise(t *testing.T) {
	var l Learner
	feed(&l, rand.New(rand.NewPCG(9, 9)), 40, 500, 2, 1.5)
	rng := rand.New(rand.NewPCG(3, 3))
	for range 500 {
		l.Observe(rng.Float64()*20000, 1+6*rng.Float64(), 1+float64(rng.IntN(8)))
	}
	if n, ok := l.Interval(); ok {
		t.Errorf("learned %d from unrelated pairs", n)
	}
}

// Too few pairs decide nothing; impossible input is ignored.
func TestUndecided(t *testing.T) {
	var l Learner
	for range MinVotes - 1 {
		l.Observe(400, 4, 1)
	}
	if _, ok := l.Interval(); ok {
		t.Error("decided before MinVotes pairs")
	}
	for _, v := range [][3]float64{{-5, 2, 1}, {100, 0, 1}, {100, 2, 0}, {math.NaN(), 2, 1}, {math.Inf(1), 2, 1}} {
		l.Observe(v[0], v[1], v[2])
	}
	if l.Pairs() != MinVotes-1 {
		t.Errorf("pairs %d after invalid input, want %d", l.Pairs(), MinVotes-1)
	}
	l.Observe(400, 4, 1)
	if n, ok := l.Interval(); !ok || n != 100 {
		t.Errorf("interval %d %v, want 100", n, ok)
	}
}

// A restart with another interval is followed once the new one wins the vote.
func TestRelearns(t *testing.T) {
	var l Learner
	rng := rand.New(rand.NewPCG(5, 5))
	feed(&l, rng, 40, 1000, 1, 0)
	feed(&l, rng, 10, maxMargin+MinVotes, 1, 0)
	if n, _ := l.Interval(); n != 10 {
		t.Errorf("%d pairs after the change to 10: %d", maxMargin+MinVotes, n)
	}
}
