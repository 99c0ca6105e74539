package estimate

import "math"

// Defaults for TheilSenOptions.
const (
	// DefaultTheilSenCapacity is the ring size: 128 points (≈ 4 min at one sample per 2 s)
	// are plenty to catch the adaptive fit being dragged, and Fit's scratch of cap·(cap−1)/2
	// slopes stays at 64 KB, so 256 series stay within a few MB.
	DefaultTheilSenCapacity = 128
	// DefaultTheilSenMinDX skips pairs closer than one token in x: their
	// slope is noise divided by almost nothing.
	DefaultTheilSenMinDX = 1.0
)

// TheilSenOptions configure NewTheilSen; zero fields select the defaults.
type TheilSenOptions struct {
	Capacity int     // points kept (the most recent)
	MinDX    float64 // pairs with |Δx| < MinDX are skipped
	// Scratch, if set, is the fit's scratch space shared with other TheilSens that are never
	// fitted at the same time (a model.Set's series, fitted one after another under its
	// lock): one buffer instead of one per series, which at 256 series was 16 MB of the
	// daemon's heap once the first report had been built.
	Scratch *[]float64
}

// TheilSen is the robust reference fit of the step model: slope = median of
// the pairwise slopes (y_j − y_i)/(x_j − x_i), intercept = median of
// y − slope·x, over the last Capacity points (Theil 1950, Sen 1968). Its
// breakdown point is 29 %: it is the check on the RLS fit, which is fast
// and adaptive but can be dragged by a run of bad samples. Fit is O(n²)
// time, so call it every few dozen samples or at report time, not per
// sample. NewTheilSen allocates the ring and the first Fit the scratch;
// Add and later Fits allocate nothing.
//
// TheilSen holds slices: a copy shares the buffers with the original, so
// keep one owner (embed it in a struct reached by pointer).
type TheilSen struct {
	xs, ys  []float64 // ring buffer
	next, n int
	minDX   float64
	scratch []float64 // pairwise slopes, then residuals
	shared  *[]float64
}

// NewTheilSen allocates the ring; the scratch space (the larger part) waits for the first Fit,
// so that series which never get two points apart cost 2 KB rather than 66 KB.
func NewTheilSen(o TheilSenOptions) TheilSen {
	c := o.Capacity
	if c < 2 {
		c = DefaultTheilSenCapacity
	}
	mdx := o.MinDX
	if !(mdx > 0) {
		mdx = DefaultTheilSenMinDX
	}
	return TheilSen{
		xs: make([]float64, c), ys: make([]float64, c), minDX: mdx, shared: o.Scratch,
	}
}

// Add appends a point, overwriting the oldest when full. Non-finite points
// are ignored.
func (t *TheilSen) Add(x, y float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) {
		return
	}
	t.xs[t.next], t.ys[t.next] = x, y
	// A comparison, not a modulo (a 64-bit division) per point of every series' fit:
	// TheilSen.Add 10.8 → 9.3 M instructions of analyze on the chatty corpus (cachegrind).
	if t.next++; t.next == len(t.xs) {
		t.next = 0
	}
	if t.n < len(t.xs) {
		t.n++
	}
}

// Len is the number of points held.
func (t *TheilSen) Len() int { return t.n }

// Cap is the capacity.
func (t *TheilSen) Cap() int { return len(t.xs) }

// Reset forgets all points.
func (t *TheilSen) Reset() { t.next, t.n = 0, 0 }

// Fit returns the Theil–Sen intercept and slope of the points held. ok is
// false when no pair of points is MinDX apart in x.
func (t *TheilSen) Fit() (a, b float64, ok bool) {
	n, xs, ys := t.n, t.xs, t.ys
	c := len(xs)
	need := max(c*(c-1)/2, c)
	if t.shared != nil {
		if len(*t.shared) < need {
			*t.shared = make([]float64, need)
		}
		t.scratch = *t.shared
		defer func() { t.scratch = nil }()
	} else if t.scratch == nil {
		t.scratch = make([]float64, need)
	}
	m := 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			dx := xs[j] - xs[i]
			if math.Abs(dx) < t.minDX {
				continue
			}
			t.scratch[m] = (ys[j] - ys[i]) / dx
			m++
		}
	}
	if m == 0 {
		return 0, 0, false
	}
	b = tsMedian(t.scratch[:m])
	r := t.scratch[:n]
	for i := 0; i < n; i++ {
		r[i] = ys[i] - b*xs[i]
	}
	return tsMedian(r), b, true
}

// tsMedian returns the median of v (mean of the two middle values for
// even length), reordering v. len(v) must be > 0.
func tsMedian(v []float64) float64 {
	h := len(v) / 2
	hi := tsSelect(v, h)
	if len(v)%2 == 1 {
		return hi
	}
	// After selection v[:h] ≤ v[h]: the lower middle is the largest of them.
	lo := v[0]
	for _, x := range v[1:h] {
		lo = max(lo, x)
	}
	return 0.5 * (lo + hi)
}

// tsSelect returns the k-th smallest element of v (0-based) by
// Hoare's quickselect with a median-of-three pivot, leaving v partitioned:
// v[:k] ≤ v[k] ≤ v[k+1:]. Expected O(len(v)); the data are finite.
func tsSelect(v []float64, k int) float64 {
	lo, hi := 0, len(v)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		p := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < p {
				i++
			}
			for v[j] > p {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}

// Scratch is the scratch space the fit shares (TheilSenOptions.Scratch), for a new fit that
// replaces it.
func (t *TheilSen) Scratch() *[]float64 { return t.shared }
