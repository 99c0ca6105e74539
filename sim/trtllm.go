package sim

// TensorRT-LLM logs every executor iteration (print_iter_log): decodeStep runs one step per
// line for it, and an iteration that admitted requests ran their context phase beside the
// generation requests.

// trtContext is the context phase of the n requests just admitted: their prompt tokens, and
// the seconds they add to the iteration (about 20k tokens/s plus a launch cost, as prefillLine).
func (r *rankSim) trtContext(n int) (tokens int, secs float64) {
	for _, q := range r.running[len(r.running)-n:] {
		tokens += q.context()
	}
	if n > 0 {
		secs = 0.015 + float64(tokens)/20000
	}
	return tokens, secs
}

// trtIdle writes the iteration that waited through an idle gap for the request arriving at t:
// nothing scheduled, its host step time the wait (as nvbug 6627789's iteration 259 shows).
func (r *rankSim) trtIdle(t int64) {
	rec := r.emit(LineIteration, t, nil)
	r.iter++
	rec.Iter, rec.Fetched, rec.Device, rec.afterIdle = r.iter, r.nextID, r.prevStep, true
	rec.Step = float64(t-r.lastLine) / 1e9
	r.prevStep, r.lastLine, r.idleSince = 0.0005, t, false // an empty iteration's GPU time
}

// trtLine writes the iteration ending at t: adm of its requests ran their context phase
// (ctxTok tokens), the others generated, each with the draft length unless the policy has
// speculation off; wall is its host step time.
func (r *rankSim) trtLine(t int64, wall float64, adm, ctxTok int, e *effects, fill func(*record)) {
	r.gateLine(t)
	rec := r.emit(LineIteration, t, e)
	fill(rec)
	k := r.svc.Acceptance.DraftLen
	if r.specOff() {
		k = 0
	}
	rec.Running, rec.NewSeq, rec.NewTok = rec.Running-adm, adm, ctxTok
	rec.Drafted, rec.Step, rec.Device, rec.Fetched = int64(rec.Running*k), wall, r.prevStep, r.nextID
	r.prevStep = wall
}
