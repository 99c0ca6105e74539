package sim

import (
	"math"

	"github.com/specwatch/specwatch/sim/enginelog"
)

// statsStep simulates one vLLM logging interval and writes the engine line and, when drafts
// were made, the speculative line after it.
//
// vLLM logs on a clock, not on a step count: every StatsInterval while there is activity, one
// all-zero line when activity stops, then nothing until a request arrives. The first line after
// an idle gap covers a partly idle interval, so its throughput is low: it is marked afterIdle.
func (r *rankSim) statsStep() {
	iv := r.statsInterval + r.rng.Int64N(5_000_000) // the log loop drifts by a few ms
	r.admit(r.now)
	from := r.now
	afterIdle := false
	if len(r.running) == 0 {
		if r.lastActive {
			r.lastActive = false
			r.now += iv
			if r.now > r.end {
				r.done = true
				return
			}
			e := effectsAt(r.faults, r.offset(r.now))
			rec := r.emit(LineStats, r.now, &e)
			rec.Interval = float64(iv) / 1e9
			r.lastLine = r.now
			return
		}
		if r.arrival >= r.end {
			r.done = true
			return
		}
		r.now += (r.arrival - r.now) / r.statsInterval * r.statsInterval
		from = r.arrival
		r.admit(r.arrival)
		afterIdle = true
	}
	t := r.now + iv
	if t > r.end {
		r.done = true
		return
	}
	e := effectsAt(r.faults, r.offset(from))
	c := r.commit(&e)
	active := float64(t-from) / 1e9
	running := len(r.running)
	noise := r.stepNoise()
	// The step depends on the context the steps themselves grow: estimate the growth at the
	// starting context, then settle the step at the context reached.
	ctx0 := r.contextTokens()
	s := r.step(ctx0, &e, noise)
	steps := active / (s * e.wallMul)
	s = r.step(ctx0+int(steps*c*float64(running)), &e, noise)
	steps = active / (s * e.wallMul)

	drafts := int64(math.Round(steps * float64(running)))
	k := r.svc.Acceptance.DraftLen
	if r.specOff() {
		k = 0 // no drafts: vLLM prints no SpecDecoding line for the interval
	}
	var pos [enginelog.MaxPositions]int32
	accepted := int64(0)
	if k > 0 && drafts > 0 {
		accepted = positionCounts(&pos, k, c, drafts)
	}
	commit := 1.0
	if drafts > 0 {
		commit = 1 + float64(accepted)/float64(drafts)
	}
	perReq := float64(drafts) / float64(running) * commit
	ph := r.svc.Acceptance.Phases
	for i := range r.running {
		q := &r.running[i]
		q.gen += perReq
		q.advancePhase(ph)
	}
	ctx := r.contextTokens()
	interval := float64(t-r.lastLine) / 1e9
	if afterIdle {
		interval = float64(iv) / 1e9
	}
	gen := float64(drafts) + float64(accepted)
	r.cumAcc += accepted
	r.cumDraft += drafts * int64(k)
	r.cumEmit += drafts + accepted
	r.enqueue(t)
	r.prefixHit = min(95, max(0, r.prefixHit+r.rng.NormFloat64()))

	fill := func(rec *record) {
		rec.Ctx, rec.Running, rec.Queue = ctx, running, r.waiting()
		rec.Step, rec.Commit, rec.TPS, rec.afterIdle = s, commit, gen/interval, afterIdle
		rec.Drafts, rec.Accepted, rec.Drafted, rec.Pos = drafts, accepted, drafts*int64(k), pos
		rec.Interval, rec.PromptTPS = interval, float64(r.promptTokens)/interval
		rec.CumAcc, rec.CumDraft, rec.CumEmit = r.cumAcc, r.cumDraft, r.cumEmit
		rec.Depth = commit - 1
	}
	fill(r.emit(LineStats, t, &e))
	if k > 0 && drafts > 0 {
		fill(r.emit(LineSpec, t+150_000, &e))
	}
	r.promptTokens = 0
	r.lastLine, r.lastActive, r.now = t, true, t
	r.finish(t)
}

// positionCounts fills pos with how many of drafts drafts were accepted at each of k positions
// and returns their sum. Position i+1 can only be accepted after position i, so the rates fall
// geometrically: p_i = ρ^i with Σ p_i = c − 1.
func positionCounts(pos *[enginelog.MaxPositions]int32, k int, c float64, drafts int64) int64 {
	rho := geomRatio(k, c-1)
	total := int64(0)
	p := 1.0
	for i := range k {
		p *= rho
		pos[i] = int32(math.Round(float64(drafts) * p))
		total += int64(pos[i])
	}
	return total
}

// geomRatio returns the ρ in [0, 1] whose powers ρ + ρ² + … + ρ^k come to want: the chance of
// accepting each further draft token when k are drafted and want are accepted on average.
func geomRatio(k int, want float64) float64 {
	lo, hi := 0.0, 1.0
	for range 40 {
		mid := (lo + hi) / 2
		sum, p := 0.0, 1.0
		for range k {
			p *= mid
			sum += p
		}
		if sum < want {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
