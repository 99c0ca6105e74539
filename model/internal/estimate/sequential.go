package estimate

import "math"

// Sequential change detection for acceptance_drop and step_time_regression.
//
// Input: standardised window means. Commit length is logged every ~2 s;
// BlockMean averages DefaultCUSUMWindow = 30 samples into one-minute
// windows, and the caller standardises each window mean against the
// baseline (the long EWMA): z = (m − baseline)/σ_w, σ_w the spread of a
// window mean. Commit length per sample is bounded and skewed, a mean of
// 30 is close to Gaussian, which is what the ARL figures below assume; and
// windows cut the work by 30.
//
// Noise: commit length has a per-sample coefficient of variation ≈ 0.15 on
// hard text, so an independent window mean has CV 0.15/√30 = 0.0274 and a
// sustained relative drop r is a shift of r/0.0274 σ_w: 10 % → 3.65σ,
// 30 % → 10.95σ. Consecutive samples are correlated (the same requests stay
// in the batch), which inflates the variance of a mean: lag-1 correlation
// 0.6 doubles σ_w. σ_w should therefore be measured (the long EWMA's Std of
// window means), never taken from √30 alone, and the detection targets are
// checked at σ_w = 2 × 0.0274 as well: 10 % → 1.83σ, 30 % → 5.48σ.
//
// False-alarm budget: at most one false alarm per series per week. A week
// is 10,080 one-minute windows; asking for an in-control average run length
// ARL0 ≥ 10^5 windows leaves a ≈10× margin for σ_w estimation error and
// non-Gaussian tails.
//
// Detection targets: a sustained 10 % drop raised within 30 minutes (30
// windows), a 30 % drop within 5 minutes (5 windows).
//
// Choice: k = DefaultCUSUMK = 0.5σ (optimal for a 1σ shift, i.e. a 2.7 %
// drop at the nominal σ_w, so the detector keeps its power if σ_w turns
// out larger), h = DefaultCUSUMH = 10σ. Siegmund's approximation
// (CUSUMARL; in brackets Monte Carlo means of 20,000 detections, and of
// 100 to 200 in-control runs for ARL0) gives:
//
//	ARL0 = 141,000 windows [132,000 to 142,000 in three runs]
//	       = 14 weeks: 0.07 false alarms per series-week
//	10 % drop: ARL1 = 3.5 [3.7] windows at nominal σ_w, 8.1 [8.3] at 2×σ_w
//	30 % drop: ARL1 = 1.1 [1.3] windows at nominal σ_w, 2.2 [2.5] at 2×σ_w
//	 5 % drop: ARL1 = 8.1 [8.3] windows at nominal σ_w, 24 [24] at 2×σ_w,
//	           only 77 % of them within 30 windows (5 % is below the
//	           design targets)
//
// Siegmund underestimates ARL1 near 1 (a run lasts at least one window).
// Other (k, h) pairs on the same budget trade little: k = 1, h = 5 is a bit
// faster on 30 % drops (1.35 windows at 2×σ_w) but needs 56 windows for a
// 5 % drop at 2×σ_w; k = 0.75, h = 6.6 sits in between.
//
// The tests confirm by Monte Carlo that ARL0 is within 20 % of the
// approximation and that, even at 2×σ_w, ≥ 99 % of 10 % drops alarm within
// 30 windows and ≥ 99 % of 30 % drops within 5. Add the up-to-one-minute
// wait for the window to close to each figure. The baseline EWMA should
// have a half-life of hours (at 2 h it absorbs < 5 % of a drop in the 8
// windows a 10 % drop takes to alarm) and should not absorb windows while
// S > h/2 (rare in control), so that a drop does not become the baseline.
const (
	DefaultCUSUMK      = 0.5
	DefaultCUSUMH      = 10.0
	DefaultCUSUMWindow = 30
)

// Side is the direction of shift a CUSUM looks for.
type Side int8

const (
	// SideDown detects a fall of the mean (acceptance_drop).
	SideDown Side = iota
	// SideUp detects a rise (step_time_regression: steps slower than the model).
	SideUp
)

// CUSUMOptions configure NewCUSUM; zero K or H select the defaults.
type CUSUMOptions struct {
	K, H float64 // drift allowance and decision threshold, in σ
	Side Side
}

// CUSUM is Page's one-sided cumulative sum on standardised values z
// (in-control mean 0, variance 1):
//
//	SideDown: S ← max(0, S − z − k)    SideUp: S ← max(0, S + z − k)
//
// and it is in alarm while S > h. S is capped at 2h, which changes no
// first-passage time (the alarm already holds at h) but bounds how long the
// alarm outlives a recovery: at most about h/k windows (20 with the
// defaults) once z is back to 0. CUSUM is a value type.
type CUSUM struct {
	k, h float64
	side Side
	s    float64
	run  int // updates since S was last 0
}

// NewCUSUM returns a detector in its initial state S = 0.
func NewCUSUM(o CUSUMOptions) CUSUM {
	c := CUSUM{k: o.K, h: o.H, side: o.Side}
	if !(c.k > 0) {
		c.k = DefaultCUSUMK
	}
	if !(c.h > 0) {
		c.h = DefaultCUSUMH
	}
	return c
}

// Retune takes a new allowance and threshold (defaults for non-positive ones) and keeps S.
func (c *CUSUM) Retune(k, h float64) {
	n := NewCUSUM(CUSUMOptions{K: k, H: h})
	c.k, c.h = n.k, n.h
}

// Update feeds one standardised value and reports whether the detector is
// in alarm. Non-finite z is ignored.
func (c *CUSUM) Update(z float64) bool {
	if math.IsNaN(z) || math.IsInf(z, 0) {
		return c.s > c.h
	}
	if c.side == SideDown {
		z = -z
	}
	c.s = min(max(0, c.s+z-c.k), 2*c.h)
	if c.s == 0 {
		c.run = 0
	} else {
		c.run++
	}
	return c.s > c.h
}

// Alarm reports S > h.
func (c *CUSUM) Alarm() bool { return c.s > c.h }

// Stat is the current statistic S, in σ.
func (c *CUSUM) Stat() float64 { return c.s }

// RunLength is the number of updates since S was last 0: the maximum
// likelihood estimate of how many windows ago the shift began, for an
// anomaly's start.
func (c *CUSUM) RunLength() int { return c.run }

// Reset returns to S = 0 (after an alarm has been reported, or when the
// baseline is re-established).
func (c *CUSUM) Reset() { c.s, c.run = 0, 0 }

// CUSUMARL is Siegmund's approximation of the average run length of a
// one-sided CUSUM with allowance k and threshold h (in σ) when the
// standardised input has mean shift (in σ, towards the detected side; 0
// is in control):
//
//	Δ = shift − k, b = h + 1.166
//	ARL ≈ (exp(−2Δb) + 2Δb − 1) / (2Δ²),  → b² as Δ → 0
//
// (Siegmund, Sequential Analysis, 1985, §X.2; 1.166 = 2·0.583 corrects for
// the overshoot of the Gaussian random walk). In control this is
// (exp(2kb) − 2kb − 1)/(2k²).
func CUSUMARL(shift, k, h float64) float64 {
	d := shift - k
	b := h + 1.166
	x := 2 * d * b
	if math.Abs(x) < 1e-4 {
		return b * b * (1 - x/3 + x*x/12)
	}
	return (math.Expm1(-x) + x) / (2 * d * d)
}

// CUSUMThreshold returns the h for which CUSUMARL(0, k, h) = arl0.
func CUSUMThreshold(k, arl0 float64) float64 {
	if !(arl0 > CUSUMARL(0, k, 0)) {
		return 0
	}
	lo, hi := 0.0, 1.0
	for CUSUMARL(0, k, hi) < arl0 && hi < 1e6 {
		lo, hi = hi, 2*hi
	}
	for range 100 {
		m := 0.5 * (lo + hi)
		if CUSUMARL(0, k, m) < arl0 {
			lo = m
		} else {
			hi = m
		}
	}
	return 0.5 * (lo + hi)
}

// BlockMean averages consecutive samples in blocks of a fixed size, to turn
// 2-second commit-length samples into the window means the CUSUM defaults
// are designed for. It is a value type.
type BlockMean struct {
	size, n int
	sum     float64
}

// NewBlockMean returns an aggregator of blocks of size samples (≤ 0 →
// DefaultCUSUMWindow).
func NewBlockMean(size int) BlockMean {
	if size <= 0 {
		size = DefaultCUSUMWindow
	}
	return BlockMean{size: size}
}

// Add adds v; when it completes a block, it returns the block mean and true
// and starts a new block. Non-finite values are ignored.
func (b *BlockMean) Add(v float64) (mean float64, full bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	b.sum += v
	b.n++
	if b.n < b.size {
		return 0, false
	}
	mean = b.sum / float64(b.n)
	b.sum, b.n = 0, 0
	return mean, true
}

// Close ends the unfinished block before it is full: its mean and true, or false if it is
// empty.
func (b *BlockMean) Close() (mean float64, ok bool) {
	if b.n == 0 {
		return 0, false
	}
	mean = b.sum / float64(b.n)
	b.sum, b.n = 0, 0
	return mean, true
}

// Pending is the number of samples in the unfinished block.
func (b *BlockMean) Pending() int { return b.n }

// Reset drops the unfinished block.
func (b *BlockMean) Reset() { b.sum, b.n = 0, 0 }
