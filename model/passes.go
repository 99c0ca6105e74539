package model

import (
	"math"
	"time"

	"github.com/specwatch/specwatch/model/internal/estimate"
	"github.com/specwatch/specwatch/sample"
)

// passBin gathers the forward passes (ingest/fwdpass) of one batch size within a second.
type passBin struct {
	n         int
	t0, t     int64
	running   float64
	ctx, step float64 // sums
}

// passBinTime is how long a bin gathers passes. Passes come hundreds a second: one point per
// pass would make the fit's forgetting, tuned for log lines every few seconds, forget within
// seconds. A linear step model predicts the mean step at the mean context exactly, so a bin's
// means lose nothing of it.
const passBinTime = int64(time.Second)

// pass takes one forward pass: its measured step at its batch's KV tokens. Passes with a
// prefill come as prefill samples and stay out of the decode step model.
func (se *Series) pass(s *sample.Sample) {
	step, hasStep := s.Get(sample.StepSeconds)
	running := s.Value(sample.Running)
	ctx, hasCtx := s.Get(sample.Context)
	if !hasStep || !(step > 0) || !(running > 0) || !hasCtx || !se.takePoints(s) {
		return
	}
	b := &se.passes
	if b.n > 0 && (running != b.running || s.Time-b.t0 >= passBinTime) {
		se.flushPasses()
	}
	if b.n == 0 {
		b.t0, b.running = s.Time, running
	}
	b.n++
	b.t, b.ctx, b.step = s.Time, b.ctx+ctx, b.step+step
}

// flushPasses makes the bin one point of the fit. The passes state no acceptance: their tokens
// per step are the commit length the counters or the logs give.
func (se *Series) flushPasses() {
	b := &se.passes
	n := float64(b.n)
	p := point{t: b.t, running: b.running, ctx: b.ctx / n, hasCtx: true, step: b.step / n, tps: math.NaN()}
	*b = passBin{}
	if se.cur.has&curCommit != 0 {
		p.commit, p.hasCommit = se.cur.commit, true
		p.tps = p.commit * p.running / p.step
	}
	se.learn.skipped.Count(false, true, p.step, false)
	se.apply(&p)
}

// relearnInTokens starts the step model again in tokens: vLLM's logs state KV cache usage in
// percent, its forward passes the KV tokens of their batch, and a fit of the one is no fit of
// the other.
func (se *Series) relearnInTokens() {
	se.kvContext = false
	se.fit = estimate.NewRLS(se.opts.Fit)
	se.ref = estimate.NewTheilSen(estimate.TheilSenOptions{Scratch: se.ref.Scratch()})
	se.width = estimate.NewBilinear(widthForget)
	se.lo, se.hi = 0, 0
	se.det.regress = newRegressionDetector(se.opts)
}
