// Package throughput compares the tok/s a series measured with what its step model predicted,
// on the same points, for the report's predicted mean and error.
package throughput

import "math"

// Stats accumulates measured and predicted tok/s; the zero value is ready. mp sums what was
// measured where a prediction was made (points before the fit is warm, and requests that
// shared their steps, have none), so that the two means compare like with like.
type Stats struct {
	n, np                   int64
	measured, mp, pred, ape float64
}

// Add records one point; pred is NaN or ≤ 0 where the model made no prediction.
func (t *Stats) Add(measured, pred float64) {
	if math.IsNaN(measured) || measured <= 0 {
		return
	}
	t.n++
	t.measured += measured
	if pred > 0 && !math.IsNaN(pred) {
		t.np++
		t.mp += measured
		t.pred += pred
		t.ape += math.Abs(pred-measured) / measured
	}
}

// N is the number of measured points, Predicted the number of them with a prediction.
func (t *Stats) N() int64         { return t.n }
func (t *Stats) Predicted() int64 { return t.np }

// Means are the measured and predicted means: over the predicted points once there are some.
func (t *Stats) Means() (measured, pred float64, ok bool) {
	if t.np == 0 {
		return t.measured / float64(t.n), 0, false
	}
	return t.mp / float64(t.np), t.pred / float64(t.np), true
}

// MAPE is the mean absolute error of the predictions as a fraction of measured (NaN before any).
func (t *Stats) MAPE() float64 { return t.ape / float64(t.np) }
