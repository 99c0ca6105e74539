package model

import (
	"math"

	"github.com/specwatch/specwatch/model/internal/decimate"
	"github.com/specwatch/specwatch/model/internal/window"
)

// addWindow feeds attribution's windows (model/internal/window) a point whose throughput is
// known.
func (se *Series) addWindow(p *point) {
	if math.IsNaN(p.tps) {
		return
	}
	se.win.Add(p.t, p.commit, p.ctx, p.step, p.running)
}

// mean summarises a window for attribution.
func mean(w *window.Sum) AttributionWindow {
	tps, c, ctx, s, r := w.Means()
	return AttributionWindow{TPS: tps, Commit: c, Context: ctx, Step: s, Running: r}
}

// history keeps the points for plots at decreasing resolution (model/internal/decimate).
type history struct{ decimate.Points[HistoryPoint] }

// historyCapacity points per series: 24 h at one sample per 2 s decimates to a point every
// 64 s, still finer than a status-page plot.
const historyCapacity = 2048

// historyFirst is the first allocation of a series' history: 2.5 KB.
const historyFirst = 64

func newHistory(n int) history { return history{decimate.New[HistoryPoint](n, historyFirst)} }

func (h *history) add(p *point, predStep float64) {
	if !h.Take() {
		return
	}
	pred := math.NaN()
	if predStep > 0 {
		pred = p.commit * p.running / predStep
	}
	h.Add(HistoryPoint{T: p.t, Ctx: float32(p.ctx), Step: float32(p.step), Commit: float32(p.commit),
		TPS: float32(p.tps), Pred: float32(pred), PredStep: float32(predStep), Idle: p.idle})
}

// lastIdle reports whether the latest recorded point was an after-idle artefact (tests).
func (h *history) lastIdle() bool { return len(h.Pts) > 0 && h.Pts[len(h.Pts)-1].Idle }
