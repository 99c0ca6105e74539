package sim

// decodeStep simulates one logging interval of a step-counting engine (SGLang, a generic build):
// DecodeInterval decode steps, then the lines SGLang would print.
//
// Requests join and leave only at interval boundaries, so the batch is constant over the steps a
// line summarises and its throughput is exactly commit × running / step (up to rounding), except
// for the first line after an idle gap, whose wall time includes the gap.
//
// The step time is evaluated at the context the line reports, so that a fit of step time on the
// written #token recovers StepModel.A and B up to noise.
func (r *rankSim) decodeStep() {
	adm := r.admit(r.now)
	if adm > 0 && r.svc.PrefillLines && r.svc.Engine == SGLang {
		r.prefillLine(r.now+120_000, adm)
	}
	trt := r.svc.Engine == TRTLLM // a line per iteration (trtllm.go)
	if len(r.running) == 0 {
		if r.arrival >= r.end {
			r.done = true
			return
		}
		r.now = max(r.now, r.arrival)
		r.idleSince = true
		return
	}
	ctxTok, ctxSecs := 0, 0.0
	if trt {
		if r.idleSince {
			r.trtIdle(r.now)
		}
		ctxTok, ctxSecs = r.trtContext(adm)
	}
	e := effectsAt(r.faults, r.offset(r.now))
	c := r.commit(&e)
	n := float64(r.decodeInterval)
	if trt || r.svc.ForwardPass {
		n = 1
	}
	ph := r.svc.Acceptance.Phases
	for i := range r.running {
		q := &r.running[i]
		q.gen += n * c
		q.advancePhase(ph)
	}
	ctx := r.contextTokens()
	step := r.step(ctx, &e, r.stepNoise())
	wall := n*step*e.wallMul + ctxSecs
	t := r.now + int64(wall*1e9)
	if t > r.end {
		r.done = true
		return
	}
	running := len(r.running)
	tps := n * c * float64(running) / (float64(t-r.lastLine) / 1e9)
	if r.svc.ForwardPass {
		done, tok, steps := r.pass(t, ctx, running, step, c)
		if !done {
			r.iter++
			r.enqueue(t)
			r.now = t
			r.finish(t)
			return
		}
		c, tps = tok/steps, tok/(float64(t-r.lastLine)/1e9) // the line's: over its interval
	}
	afterIdle := r.idleSince
	r.lastLine, r.idleSince = t, false
	r.iter += int64(n)
	r.enqueue(t)

	fill := func(rec *record) {
		rec.Ctx, rec.Running, rec.Queue = ctx, running, r.waiting()
		rec.Step, rec.Commit, rec.TPS, rec.afterIdle = step, c, tps, afterIdle
		rec.Iter, rec.Depth = r.iter, c-1
		if e.depth > 0 {
			rec.Depth = e.depth
		}
	}
	switch r.svc.Engine {
	case SGLang:
		r.adaptiveLine(t)
		fill(r.emit(LineDecode, t, &e))
		if r.svc.CustomStats {
			fill(r.emit(LineCustom, t+30_000, &e))
		}
		if r.svc.ProfileLines {
			fill(r.emit(LineProfile, t+60_000, &e))
		}
	case Generic:
		fill(r.emit(LineCustom, t, &e))
	case TRTLLM:
		r.trtLine(t, wall, adm, ctxTok, &e, fill)
	}
	r.now = t
	r.finish(t)
}

// prefillLine writes SGLang's Prefill batch line for the n requests just admitted.
func (r *rankSim) prefillLine(t int64, n int) {
	e := effectsAt(r.faults, r.offset(t))
	rec := r.emit(LinePrefill, t, &e)
	newTok, cached := 0, 0
	for _, q := range r.running[len(r.running)-n:] {
		c := 0
		if r.rng.IntN(2) == 0 {
			c = int(float64(q.context())*0.5*r.rng.Float64()) / 64 * 64
		}
		cached += c
		newTok += q.context() - c
	}
	rec.NewSeq, rec.NewTok, rec.Cached = n, newTok, cached
	rec.Running, rec.Queue, rec.Ctx = len(r.running)-n, r.waiting(), r.contextTokens()
	// Prefill runs at roughly 20k tokens/s plus a fixed launch cost.
	rec.InputTPS = float64(newTok) / (0.015 + float64(newTok)/20000)
	r.promptTokens = 0
}
