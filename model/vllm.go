package model

import (
	"github.com/specwatch/specwatch/model/internal/vllmjoin"
	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/sample"
)

// vllmEngine holds an engine line for the SpecDecoding line that completes it
// (model/internal/vllmjoin).
func (se *Series) vllmEngine(s *sample.Sample) {
	if !se.takePoints(s) {
		return // the other source gives this series' steps
	}
	se.flushPending() // an engine line whose SpecDecoding line never came
	running, _ := s.Get(sample.Running)
	tps, hasTPS := s.Get(sample.GenTPS)
	kv, hasKV := s.Get(sample.KVUsage)
	se.cur.running, se.cur.has = running, se.cur.has|curRunning
	if hasKV {
		se.cur.ctx, se.cur.has = kv*100, se.cur.has|curCtx
	}
	if running == 0 {
		se.idle.SawIdle()
		return
	}
	se.pending.Hold(vllmjoin.Engine{T: s.Time, Running: running, TPS: tps, KVPct: kv * 100, HasTPS: hasTPS, HasKV: hasKV, Src: s.Source})
}

// flushPending applies an unjoined engine line: without speculation each step commits one
// token. vLLM prints no SpecDecoding line for an interval without drafts (K = 0 for the batch
// size, vllm/v1/spec_decode/metrics.py), so a speculative service's lone engine line is that.
func (se *Series) flushPending() {
	if e, ok := se.pending.Take(); ok {
		if se.commitSrc == srcSpec {
			se.specObserve(e.T, e.Running, false)
		}
		se.engineStep(e, 1)
	}
}

// engineStep applies the decode point of engine line e at commit length commit.
func (se *Series) engineStep(e vllmjoin.Engine, commit float64) {
	step, ok := e.Step(commit)
	if !ok {
		return
	}
	p := point{t: e.T, ctx: e.KVPct, hasCtx: e.HasKV, running: e.Running, commit: commit, hasCommit: true, tps: e.TPS, step: step}
	p.idle = se.isIdle(&p, true)
	se.apply(&p)
}

// spec handles vLLM SpecDecoding / Speculative lines and llama.cpp's run summaries (a llama.cpp
// server's requests are request.go's).
func (se *Series) spec(s *sample.Sample) {
	accepted, hasAcc := s.Get(sample.Accepted)
	drafted, hasDr := s.Get(sample.Drafted)
	commit, hasCommit := s.Get(sample.Commit)
	accepts := (hasCommit || s.Has(sample.AcceptRate) || (hasAcc && hasDr)) && se.takeCommit(s)
	if v, ok := s.Get(sample.AcceptRate); ok && accepts {
		se.cur.acceptRate, se.cur.has = v, se.cur.has|curAcceptRate
	}
	if hasAcc && hasDr {
		se.inconsistentCheck(s.Time, accepted > drafted, schema.Ev(schema.CodeAcceptedOverDrafted, accepted, drafted))
	}
	pe, joined := se.pending.Join(s.Source, s.Time)
	if se.notDrafting(s, commit, hasCommit) { // the counters drafted nothing in the interval
		se.specObserve(s.Time, se.cur.running, false)
		if joined {
			se.engineStep(pe, 1)
		}
		return
	}
	if accepts && (hasCommit || drafted > 0) {
		se.specObserve(s.Time, se.cur.running, true)
	}
	// vLLM prints "Accepted: 0" with drafts > 0 when the drafter contributes nothing.
	stuck := hasAcc && hasDr && drafted > 0 && accepted == 0
	if hasCommit && accepts {
		if se.commitSrc == srcNone {
			se.commitSrc = srcSpec
		}
		se.cur.commit, se.cur.has = commit, se.cur.has|curCommit
		se.commitQ.Add(commit)
		se.short.Update(s.Time, commit)
		se.long.Update(s.Time, commit)
		se.acceptance(s.Time, commit)
		se.countCommit(s, commit, se.cur.running)
	}
	if hasAcc && hasDr && drafted > 0 && accepts {
		c := commit
		if !hasCommit {
			c = 1 // only "Accepted: 0" is certain without a commit length
		}
		se.stuckCheck(s.Time, stuck, c, stuckTest{judge: true, running: se.cur.running})
	}
	if joined && hasCommit {
		se.engineStep(pe, commit)
	}
}
