package sim

import (
	"math"

	"github.com/specwatch/specwatch/sim/enginelog"
)

// llamaServer is a llama-server's state across its requests: the slots, and the counters it
// prints cumulated since it started.
type llamaServer struct {
	busy     []bool
	lastUsed []int64 // when each slot was last released, for LRU; -1 never
	task     int     // the next task id
	graphs   int64   // graphs reused
	reshaped bool    // the batch changed since the last step: its graph is built anew
	totals   enginelog.SpecTotals
	// #gen drafts, #gen tokens, #acc tokens and accepted per position, since the start
	drafts, drafted, accepted int64
	pos                       [enginelog.MaxPositions]int32
	cursor                    int64 // engine time of the last line: lines never go back
}

func (s *llamaServer) init(slots int) {
	s.busy = make([]bool, slots)
	s.lastUsed = make([]int64, slots)
	for i := range s.lastUsed {
		s.lastUsed[i] = -1
	}
}

// freeSlot picks the free slot released longest ago, as llama-server's "selected slot by LRU".
func (s *llamaServer) freeSlot() int {
	best := -1
	for i, b := range s.busy {
		if !b && (best < 0 || s.lastUsed[i] < s.lastUsed[best]) {
			best = i
		}
	}
	return best
}

// llamaReq is what llama-server counts of one request.
type llamaReq struct {
	slot, task         int
	steps, drafts      int // verify steps, and those that drafted
	accDrafts          int // drafts that accepted at least one token
	drafted, accepted  int
	pos                [enginelog.MaxPositions]int32
	promptSec, evalSec float64
	rho, hit           float64 // chance to accept each further draft token; (n-gram) to find a draft
	running            int     // most requests running at once during it, itself included
	faults             FaultSet
}

// ngramRho is the chance an n-gram draft's next token is accepted: it copies text the context
// already holds, so nearly all of it is (157 of 157 in the captures).
const ngramRho = 0.995

// llamaStep simulates up to DecodeInterval steps of a llama-server. Each step verifies every
// busy slot's draft in one batch (A + B·context of all slots, so a request's eval time grows
// with its neighbours); a request that generated all its tokens prints its block and frees
// its slot, and waiting requests take free slots between steps, their prompt pass stalling
// the others.
func (r *rankSim) llamaStep() {
	e := effectsAt(r.faults, r.offset(r.now))
	r.llamaAdmit(&e)
	if len(r.running) == 0 {
		if r.arrival >= r.end {
			r.done = true
			return
		}
		r.now = max(r.now, r.arrival)
		return
	}
	for i := range r.running {
		r.llamaDraw(&r.running[i], &e)
	}
	noise := r.stepNoise()
	for range r.decodeInterval {
		step := r.step(r.llamaContext(), &e, noise) * e.wallMul
		t := r.now + int64(step*1e9)
		if t+5_000_000 > r.end { // room for the lines a release prints
			r.done = true
			return
		}
		r.now = t
		if !r.llama.reshaped {
			r.llama.graphs++
		}
		r.llama.reshaped = false
		done := false
		for i := range r.running {
			q := &r.running[i]
			r.llamaVerify(q)
			q.ll.evalSec += step
			q.ll.faults |= e.set
			done = done || int(q.gen) >= q.length
		}
		if done {
			r.llamaRelease(&e)
		}
		r.llamaAdmit(&e)
		if len(r.running) == 0 {
			return
		}
	}
}

// llamaContext is the KV tokens of the busy slots: each holds its prompt and all it generated
// but the last token, which the next step feeds.
func (r *rankSim) llamaContext() int {
	n := 0
	for i := range r.running {
		n += r.running[i].prompt + int(r.running[i].gen) - 1
	}
	return n
}

// llamaVerify runs one verify step of q: a draft of up to n_max tokens (fewer near the end, so
// the request stops at exactly its length; none for the last token, or when n-gram drafting
// finds nothing), of which a run from the first is accepted, plus the target's own token.
func (r *rankSim) llamaVerify(q *request) {
	s, ll := &r.llama, &q.ll
	ll.steps++
	k := 0
	if room := q.length - int(q.gen) - 1; room > 0 && r.svc.Acceptance.DraftLen > 0 {
		s.totals.DraftCalls++
		d := r.llamaDraftLen(q, room)
		if d > 0 {
			k = r.acceptRun(ll.rho, d)
			ll.drafts++
			ll.drafted += d
			ll.accepted += k
			s.drafts++
			s.drafted += int64(d)
			s.accepted += int64(k)
			s.totals.AcceptCalls++
			for i := range k {
				ll.pos[i]++
				s.pos[i]++
			}
			if k > 0 {
				ll.accDrafts++
				s.totals.AccDrafts++
			}
			s.totals.AcceptMs += 0.0003
		}
		// a draft model runs once per drafted token, an n-gram lookup is a hash probe
		if r.svc.LlamaCpp.NGram {
			s.totals.DraftMs += 0.003
		} else {
			s.totals.DraftMs += 0.11 * float64(d)
		}
	}
	q.gen += float64(k + 1)
	q.advancePhase(r.svc.Acceptance.Phases)
}

// llamaDraftLen is how many tokens q's drafter proposes when room fit: n_max for a draft model;
// for n-gram drafting, with chance hit, 3/4·n_max to n_max (ngram-mod's n_min 48 of 64) or
// nothing when fewer fit.
func (r *rankSim) llamaDraftLen(q *request, room int) int {
	n := r.svc.Acceptance.DraftLen
	if !r.svc.LlamaCpp.NGram {
		return min(n, room)
	}
	if r.rng.Float64() >= q.ll.hit {
		return 0
	}
	lo := max(1, 3*n/4)
	if d := min(lo+r.rng.IntN(n-lo+1), room); d >= lo {
		return d
	}
	return 0
}

// acceptRun draws how many of d draft tokens are accepted, each further one with chance rho:
// at least i with chance rho^i, by one uniform draw (cheaper than a logarithm per step).
func (r *rankSim) acceptRun(rho float64, d int) int {
	if rho <= 0 {
		return 0
	}
	u, p, k := r.rng.Float64(), rho, 0
	for k < d && u < p {
		k++
		p *= rho
	}
	return k
}

// llamaDraw sets q's acceptance for the coming steps from its text's commit length, bent by the
// faults and with the per-line noise: ρ for a draft model, and for n-gram drafting the chance
// to find a draft, whose tokens are nearly all accepted. A stuck drafter still drafts; nothing
// it drafts is accepted.
func (r *rankSim) llamaDraw(q *request, e *effects) {
	a := &r.svc.Acceptance
	n := a.DraftLen
	if n == 0 {
		return
	}
	c := q.meanCommit(a.Phases) * e.commitMul
	if a.NoiseSD > 0 {
		c += a.NoiseSD * r.rng.NormFloat64()
	}
	want := min(max(c, 1), float64(n+1)) - 1
	if r.svc.LlamaCpp.NGram {
		lo := max(1, 3*n/4)
		perDraft := ngramRho * (1 - math.Pow(ngramRho, float64(lo+n)/2)) / (1 - ngramRho)
		q.ll.rho, q.ll.hit = ngramRho, min(1, want/perDraft)
	} else {
		q.ll.rho = geomRatio(n, want)
	}
	if e.stuck {
		q.ll.rho = 0
	}
}
