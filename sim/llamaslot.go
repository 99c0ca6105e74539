package sim

import "math"

// Offsets, µs, of a request's lines from its first print_timing line, as in the captures: the
// timing lines, draft acceptance, acc per pos, statistics, release, all slots idle.
var llamaOffsets = [...]int64{0, 25, 26, 27, 28, 32, 33, 183, 220, 231}

// llamaLine emits a line at t, or just after the rank's previous line: the server writes one
// line at a time.
func (r *rankSim) llamaLine(kind LineKind, sub uint8, t int64, e *effects) *record {
	s := &r.llama
	if t <= s.cursor {
		t = s.cursor + 1000
	}
	s.cursor = t
	r.now = max(r.now, t)
	rec := r.emit(kind, t, e)
	rec.Sub = sub
	return rec
}

// llamaStartup writes "listening on" and, at -lv 4, that all slots are idle.
func (r *rankSim) llamaStartup() {
	r.llamaLine(LineStartup, 0, r.start, nil)
	if r.svc.LlamaCpp.Verbosity >= 4 {
		r.llamaLine(LineSlot, 2, r.start+311_000, nil)
	}
}

// llamaAdmit gives waiting requests the free slots. Each prints its launch line; its prompt
// pass samples its first token and stalls the busy slots' generation meanwhile.
func (r *rankSim) llamaAdmit(e *effects) {
	r.enqueue(r.now)
	s := &r.llama
	for len(r.queue) > 0 && len(r.running) < len(s.busy) {
		q := r.queue[0]
		r.queue = r.queue[:copy(r.queue, r.queue[1:])]
		q.admitted = r.now
		q.ll = llamaReq{slot: s.freeSlot(), task: s.task}
		s.busy[q.ll.slot], s.reshaped = true, true
		s.task++
		q.cached = min(q.cached, q.prompt-1)
		q.length = max(2, min(q.length, r.svc.Workload.MaxContext-q.prompt))
		q.gen = 1
		q.ll.promptSec = (15 + float64(q.prompt-q.cached)/20) / 1000
		if r.svc.Acceptance.DraftLen > 0 {
			s.totals.Begins++
			s.totals.BeginMs += 0.015
		}
		rec := r.llamaLine(LineSlot, 0, r.now, e)
		rec.Slot, rec.Task, rec.Ctx, rec.Running = q.ll.slot, q.ll.task, q.prompt, len(r.running)+1
		for i := range r.running {
			r.running[i].ll.evalSec += q.ll.promptSec
		}
		r.now += int64(q.ll.promptSec * 1e9)
		r.running = append(r.running, q)
		r.llamaDraw(&r.running[len(r.running)-1], e)
		for i := range r.running {
			r.running[i].ll.running = max(r.running[i].ll.running, len(r.running))
		}
	}
}

// llamaRelease ends the requests that generated all their tokens, in slot order as the server's
// loop visits them; at -lv 4 the server says so when no slot is left busy and none waits.
func (r *rankSim) llamaRelease(e *effects) {
	for {
		best := -1
		for i := range r.running {
			q := &r.running[i]
			if int(q.gen) >= q.length && (best < 0 || q.ll.slot < r.running[best].ll.slot) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		q := r.running[best]
		r.running = append(r.running[:best], r.running[best+1:]...)
		r.llamaDone(&q, e)
	}
	if len(r.running) == 0 && len(r.queue) == 0 && r.svc.LlamaCpp.Verbosity >= 4 {
		r.llamaLine(LineSlot, 2, r.llama.cursor+int64(llamaOffsets[9]-llamaOffsets[8])*1000, e)
	}
}

// llamaDone prints q's print_timing block, the drafter's statistics and its release, each
// line carrying the request's truth, and frees its slot.
func (r *rankSim) llamaDone(q *request, e *effects) {
	s, ll := &r.llama, &q.ll
	s.busy[ll.slot], s.reshaped = false, true
	s.lastUsed[ll.slot] = r.now
	s.task += ll.steps + 1 // task ids advance with the steps (0, then 50 after 48 steps)
	g := int(q.gen)
	steps := float64(ll.steps) // g − 1 − accepted
	meanCtx := float64(q.prompt+g-1) - float64(g-1)/2
	verbose := r.svc.LlamaCpp.Verbosity >= 4
	t := r.now
	line := func(kind LineKind, sub uint8, i int) *record {
		rec := r.llamaLine(kind, sub, t+llamaOffsets[i]*1000, e)
		rec.Slot, rec.Task = ll.slot, ll.task
		rec.Prompt, rec.Cached, rec.Gen = q.prompt-q.cached, q.cached, g
		rec.PromptMs, rec.EvalMs, rec.Graphs = ll.promptSec*1000, ll.evalSec*1000, s.graphs
		rec.Drafts, rec.Drafted, rec.Accepted = int64(ll.drafts), int64(ll.drafted), int64(ll.accepted)
		rec.Pos = ll.pos
		rec.Ctx, rec.Running = int(math.Round(meanCtx)), ll.running
		rec.Commit, rec.Step, rec.TPS = float64(g-1)/steps, ll.evalSec/steps, float64(g-1)/ll.evalSec
		rec.Depth = rec.Commit - 1
		rec.steps, rec.drafts, rec.meanCtx = ll.steps, ll.drafts, meanCtx
		rec.faults |= ll.faults
		return rec
	}
	for sub := range uint8(5) {
		line(LineTiming, sub, int(sub))
	}
	if ll.drafted > 0 {
		line(LineDraft, 0, 5)
		if verbose {
			line(LinePositions, 0, 6)
		}
	}
	if verbose && r.svc.Acceptance.DraftLen > 0 {
		rec := line(LineStatistics, 0, 7)
		rec.Drafts, rec.Drafted, rec.Accepted, rec.Pos = s.drafts, s.drafted, s.accepted, s.pos
		rec.Totals = s.totals
	}
	line(LineSlot, 1, 8)
}
