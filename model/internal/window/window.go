// Package window keeps the two windows of decode points that attribution compares: the best
// sustained one (the baseline: highest tok/s over a block of Size points) and the latest Size
// points (the current state, sliding), so that any fall can be attributed and the latest state
// is never up to a window stale.
package window

// Point is what a window sums of one decode point.
type Point struct {
	T                          int64
	Commit, Ctx, Step, Running float64
}

// Sum sums a stretch of points.
type Sum struct {
	Start, End                 int64
	N                          int
	Commit, Ctx, Step, Running float64
}

// Means summarises the window. Its tok/s is derived, commit × running / step of the window
// means, rather than the mean of per-line tok/s: a mean of ratios is not the ratio of means, and
// only the derived figure makes the attribution's terms add up to the measured change without a
// spurious residual from averaging.
func (w *Sum) Means() (tps, commit, ctx, step, running float64) {
	n := float64(w.N)
	c, r, s := w.Commit/n, w.Running/n, w.Step/n
	return c * r / s, c, w.Ctx / n, s, r
}

func (w *Sum) tps() float64 { t, _, _, _, _ := w.Means(); return t }

func (w *Sum) push(p *Point) {
	if w.N == 0 {
		w.Start = p.T
	}
	w.End = p.T
	w.N++
	w.Commit += p.Commit
	w.Ctx += p.Ctx
	w.Step += p.Step
	w.Running += p.Running
}

func (w *Sum) pop(p *Point) {
	w.N--
	w.Commit -= p.Commit
	w.Ctx -= p.Ctx
	w.Step -= p.Step
	w.Running -= p.Running
}

// Pair is the baseline and the current window. It allocates its ring once, in New.
type Pair struct {
	block, Best, Last Sum
	ring              []Point // the latest size points, for the sliding current window
	next              int
	size              int
}

// New returns windows of size points.
func New(size int) Pair { return Pair{size: size, ring: make([]Point, 0, size)} }

// Add records one point (one whose throughput is known): its time and means. They are
// arguments, not a Point, so that they travel in registers: Add runs for every decode point.
func (ws *Pair) Add(t int64, commit, ctx, step, running float64) {
	p := &Point{T: t, Commit: commit, Ctx: ctx, Step: step, Running: running}
	b := &ws.block
	b.push(p)
	if b.N >= ws.size {
		if ws.Best.N == 0 || b.tps() > ws.Best.tps() {
			ws.Best = *b
		}
		*b = Sum{}
	}
	if len(ws.ring) < ws.size {
		ws.ring = append(ws.ring, *p)
	} else {
		ws.Last.pop(&ws.ring[ws.next])
		ws.ring[ws.next] = *p
		// The ring wraps by a comparison, not an integer modulo: next is 0 while the ring fills
		// and below its length after (windows.add 36.5 → 32.0 M instructions on the chatty corpus,
		// cachegrind, and two 64-bit divisions fewer per decode point).
		if ws.next++; ws.next >= ws.size {
			ws.next = 0
		}
	}
	ws.Last.push(p)
	ws.Last.Start = ws.ring[ws.next].T
}

// Full reports whether both windows hold a whole window of points.
func (ws *Pair) Full() bool { return ws.Best.N > 0 && ws.Last.N >= ws.size }
