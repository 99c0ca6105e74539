package model

import "math"

// window sums a stretch of decode points for attribution.
type window struct {
	start, end                 int64
	n                          int
	commit, ctx, step, running float64
}

// mean summarises the window. Its tok/s is derived, commit × running / step of the window
// means, rather than the mean of per-line tok/s: a mean of ratios is not the ratio of means, and
// only the derived figure makes the attribution's terms add up to the measured change without a
// spurious residual from averaging.
func (w *window) mean() AttributionWindow {
	n := float64(w.n)
	c, r, s := w.commit/n, w.running/n, w.step/n
	return AttributionWindow{TPS: c * r / s, Commit: c, Context: w.ctx / n, Step: s, Running: r}
}

// windows keeps the best sustained window (the baseline: highest tok/s over a block of size
// points) and the latest size points (the current state, sliding), so that any fall can be
// attributed, and the latest state is never up to a window stale.
type windows struct {
	block, best, last window
	ring              []point // the latest size points, for the sliding current window
	next              int
	size              int
}

func newWindows(size int) windows { return windows{size: size, ring: make([]point, 0, size)} }

func (ws *windows) add(p *point) {
	if math.IsNaN(p.tps) {
		return
	}
	b := &ws.block
	b.push(p)
	if b.n >= ws.size {
		if ws.best.n == 0 || b.mean().TPS > ws.best.mean().TPS {
			ws.best = *b
		}
		*b = window{}
	}
	if len(ws.ring) < ws.size {
		ws.ring = append(ws.ring, *p)
	} else {
		ws.last.pop(&ws.ring[ws.next])
		ws.ring[ws.next] = *p
		// The ring wraps by a comparison, not an integer modulo: next is 0 while the ring fills
		// and below its length after (windows.add 36.5 → 32.0 M instructions on the chatty corpus,
		// cachegrind, and two 64-bit divisions fewer per decode point).
		if ws.next++; ws.next >= ws.size {
			ws.next = 0
		}
	}
	ws.last.push(p)
	ws.last.start = ws.ring[ws.next].t
}

// full reports whether both windows hold a whole window of points.
func (ws *windows) full() bool { return ws.best.n > 0 && ws.last.n >= ws.size }

func (w *window) push(p *point) {
	if w.n == 0 {
		w.start = p.t
	}
	w.end = p.t
	w.n++
	w.commit += p.commit
	w.ctx += p.ctx
	w.step += p.step
	w.running += p.running
}

func (w *window) pop(p *point) {
	w.n--
	w.commit -= p.commit
	w.ctx -= p.ctx
	w.step -= p.step
	w.running -= p.running
}

// tpsStats compares measured throughput with the a-priori prediction.
type tpsStats struct {
	n, np               int64
	measured, pred, ape float64
}

func (t *tpsStats) add(measured, pred float64) {
	if math.IsNaN(measured) || measured <= 0 {
		return
	}
	t.n++
	t.measured += measured
	if pred > 0 && !math.IsNaN(pred) {
		t.np++
		t.pred += pred
		t.ape += math.Abs(pred-measured) / measured
	}
}

// history keeps the points for plots: all of them at first, then every second one, then every
// fourth, so that a day or a week fits in a fixed array at decreasing resolution.
//
// The array is allocated in two steps, historyFirst points and then max: a series that lives
// for a few samples (a restarted rank, a flood of made-up units up to the series cap) costs
// 2.5 KB, not 80 KB, and a busy one allocates twice in its life, never in steady state.
type history struct {
	pts    []HistoryPoint
	max    int
	stride int
	skip   int
}

// HistoryPoint is one plotted observation. Pred is NaN until the fit is warm.
type HistoryPoint struct {
	T                                      int64
	Ctx, Step, Commit, TPS, Pred, PredStep float32
	Idle                                   bool
}

// historyCapacity points per series: 24 h at one sample per 2 s decimates to a point every
// 64 s, still finer than a status-page plot.
const historyCapacity = 2048

// historyFirst is the first allocation of a series' history.
const historyFirst = 64

func newHistory(n int) history { return history{max: n, stride: 1} }

func (h *history) add(p *point, predStep float64) {
	h.skip++
	if h.skip < h.stride {
		return
	}
	h.skip = 0
	if len(h.pts) == h.max {
		half := h.pts[:0]
		for i := 0; i < len(h.pts); i += 2 {
			half = append(half, h.pts[i])
		}
		h.pts = half
		h.stride *= 2
	}
	pred := math.NaN()
	if predStep > 0 {
		pred = p.commit * p.running / predStep
	}
	if len(h.pts) == cap(h.pts) {
		// Two sizes only: a few points for a series that may never grow (a restarted rank, a
		// made-up unit), then the whole array at once, so doubling leaves no trail of garbage.
		size := h.max
		if cap(h.pts) == 0 {
			size = min(historyFirst, h.max)
		}
		grown := make([]HistoryPoint, len(h.pts), size)
		copy(grown, h.pts)
		h.pts = grown
	}
	h.pts = append(h.pts, HistoryPoint{T: p.t, Ctx: float32(p.ctx), Step: float32(p.step), Commit: float32(p.commit),
		TPS: float32(p.tps), Pred: float32(pred), PredStep: float32(predStep), Idle: p.idle})
}

// lastIdle reports whether the latest recorded point was an after-idle artefact (tests).
func (h *history) lastIdle() bool { return len(h.pts) > 0 && h.pts[len(h.pts)-1].Idle }
