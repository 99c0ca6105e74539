package model

// idleDetector recognises SGLang's after-idle artefact: the throughput figure is tokens since
// the previous line over wall time since then, so the first line after a pause implies a step
// as long as the pause divided by the log interval. Such a line is kept for the record but out
// of fits and alarms. vLLM's interval figures have the same artefact on the first busy
// interval after an idle one.
type idleDetector struct {
	lastT     int64
	gaps      [8]float64 // recent gaps between busy lines, seconds
	steps     [8]float64 // recent implied steps, seconds
	ng, ns    int
	seenIdle  bool // an interval with nothing running was logged since the last point
	hasPoints bool
}

func (d *idleDetector) sawIdle() { d.seenIdle = true }

// check classifies p. wallAveraged says the step was derived from a wall-time average (SGLang
// gen throughput, vLLM interval throughput) rather than logged directly.
func (d *idleDetector) check(p *point, se *Series, wallAveraged bool) bool {
	gap := float64(p.t-d.lastT) / 1e9
	first := !d.hasPoints
	afterIdle := d.seenIdle
	d.hasPoints, d.lastT, d.seenIdle = true, p.t, false
	if !wallAveraged {
		return false
	}
	f := se.opts.IdleFactor
	ref := median(d.steps[:min(d.ns, len(d.steps))])
	if se.fit.N() >= fitWarmup && p.hasCtx {
		ref = se.fit.Predict(p.ctx)
	}
	typical := median(d.gaps[:min(d.ng, len(d.gaps))])
	slow := ref > 0 && p.step > f*ref
	idle := false
	switch {
	case first:
		idle = true // the interval before the first line is unknown: often the server's start
	case afterIdle:
		idle = slow || ref == 0
	case d.ng >= 3:
		idle = slow && gap > f*typical
	}
	if !idle {
		d.gaps[d.ng%len(d.gaps)] = gap
		d.ng++
		d.steps[d.ns%len(d.steps)] = p.step
		d.ns++
	}
	return idle
}

// median of a small slice, without allocating (the slices here hold at most 8 values).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	var b [8]float64
	n := copy(b[:], v)
	for i := 1; i < n; i++ { // insertion sort: 8 values, no allocation
		for j := i; j > 0 && b[j] < b[j-1]; j-- {
			b[j], b[j-1] = b[j-1], b[j]
		}
	}
	if n%2 == 1 {
		return b[n/2]
	}
	return (b[n/2-1] + b[n/2]) / 2
}
