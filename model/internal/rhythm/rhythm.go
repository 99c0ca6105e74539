// Package rhythm keeps the recent gaps between an engine's regular statistics lines and their
// median, the rhythm against which the model tells a pause (an after-idle line) from a busy
// engine's next line. It is read for every decode point, so the median is kept, not sorted.
package rhythm

// Size is the number of recent gaps kept.
const Size = 8

// Gaps is the last Size gaps, in order of arrival and sorted. The zero value is ready; it is a
// value type and allocates nothing.
type Gaps struct {
	gaps [Size]float64
	n    int
	// sorted holds gaps[:min(n, Size)] in ascending order, kept up to date as gaps are
	// replaced, so that the median is read rather than sorted for every point: sorting 8 values
	// took 195 instructions per decode point, 58 M of analyze's 4,347 M on the chatty corpus
	// (cachegrind). BenchmarkMedian (read and replace) against BenchmarkMedianSort (the sort it
	// replaced): 138 vs 295 instructions per op, median 9.0 vs 29.0 ns/op over 5 runs.
	sorted [Size]float64
}

// N is the number of gaps recorded so far (not capped at Size).
func (g *Gaps) N() int { return g.n }

// Add records a regular gap, replacing the oldest of the last Size, in gaps and in sorted: the
// new gap takes the replaced one's place in sorted and moves to its own.
func (g *Gaps) Add(gap float64) {
	slot := g.n % Size
	k := g.n // before the Size-th gap, the new one starts at the end of sorted
	if g.n >= Size {
		old := g.gaps[slot] // gaps are finite, so == finds it
		for k = 0; k < Size-1 && g.sorted[k] != old; k++ {
		}
		for k+1 < Size && g.sorted[k+1] < gap {
			g.sorted[k] = g.sorted[k+1]
			k++
		}
	}
	for k > 0 && g.sorted[k-1] > gap {
		g.sorted[k] = g.sorted[k-1]
		k--
	}
	g.sorted[k] = gap
	g.gaps[slot] = gap
	g.n++
}

// Median of the recorded gaps (0 before the first): the middle of sorted.
func (g *Gaps) Median() float64 {
	n := min(g.n, Size)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return g.sorted[n/2]
	}
	return (g.sorted[n/2-1] + g.sorted[n/2]) / 2
}
