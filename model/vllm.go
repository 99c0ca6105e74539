package model

import "github.com/specwatch/specwatch/parse"

// vllmPending is an engine line waiting for the SpecDecoding line that vLLM prints right after
// it: only together do they give a step (commit × running / throughput).
type vllmPending struct {
	ok                  bool
	t                   int64
	running, tps, kvPct float64
	hasTPS, hasKV       bool         // v0.7.0's engine line has no KV usage: no context then
	src                 parse.Source // a spec line joins only an engine line of its own source
}

// joinWindow bounds how far apart an engine line and its SpecDecoding line may be.
const joinWindow = 5e9 // ns

func (se *Series) vllmEngine(s *parse.Sample) {
	if !se.takePoints(s) {
		return // the other source gives this series' steps
	}
	se.flushPending() // an engine line whose SpecDecoding line never came
	running, _ := s.Get(parse.Running)
	tps, hasTPS := s.Get(parse.GenTPS)
	kv, hasKV := s.Get(parse.KVUsage)
	se.cur.running, se.cur.has = running, se.cur.has|curRunning
	if hasKV {
		se.cur.ctx, se.cur.has = kv*100, se.cur.has|curCtx
	}
	if running == 0 {
		se.idle.SawIdle()
		return
	}
	se.pending = vllmPending{ok: true, t: s.Time, running: running, tps: tps, kvPct: kv * 100, hasTPS: hasTPS, hasKV: hasKV, src: s.Source}
}

// flushPending applies an unjoined engine line: without speculation each step commits one token.
func (se *Series) flushPending() {
	pe := se.pending
	se.pending.ok = false
	if !pe.ok || !pe.hasTPS || pe.tps <= 0 || se.commitSrc == srcSpec {
		return // a speculative service whose spec line was lost: no commit, no step
	}
	p := point{t: pe.t, ctx: pe.kvPct, hasCtx: pe.hasKV, running: pe.running, commit: 1, hasCommit: true, tps: pe.tps}
	p.step = pe.running / pe.tps
	p.idle = se.isIdle(&p, true)
	se.apply(&p)
}

// spec handles vLLM SpecDecoding / Speculative lines and llama.cpp's run summaries (a llama.cpp
// server's requests are request.go's).
func (se *Series) spec(s *parse.Sample) {
	accepted, hasAcc := s.Get(parse.Accepted)
	drafted, hasDr := s.Get(parse.Drafted)
	commit, hasCommit := s.Get(parse.Commit)
	accepts := (hasCommit || s.Has(parse.AcceptRate) || (hasAcc && hasDr)) && se.takeCommit(s)
	if v, ok := s.Get(parse.AcceptRate); ok && accepts {
		se.cur.acceptRate, se.cur.has = v, se.cur.has|curAcceptRate
	}
	if hasAcc && hasDr {
		se.inconsistentCheck(s.Time, accepted > drafted, func() string {
			return sprintf("accepted %.0f draft tokens out of %.0f drafted: more accepted than proposed", accepted, drafted)
		})
	}
	pe := se.pending
	if pe.src != s.Source {
		pe.ok = false // the other source's engine line waits for its own spec line
	} else {
		se.pending.ok = false
	}
	joined := pe.ok && s.Time-pe.t <= joinWindow && s.Time >= pe.t
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
	}
	if hasAcc && hasDr && drafted > 0 && accepts {
		c := commit
		if !hasCommit {
			c = 1 // only "Accepted: 0" is certain without a commit length
		}
		se.stuckCheck(s.Time, stuck, c, stuckTest{judge: true, running: se.cur.running})
	}
	if !joined || !hasCommit || !pe.hasTPS || pe.tps <= 0 {
		return
	}
	p := point{t: pe.t, ctx: pe.kvPct, hasCtx: pe.hasKV, running: pe.running, commit: commit, hasCommit: true, tps: pe.tps}
	p.step = commit * pe.running / pe.tps
	p.idle = se.isIdle(&p, true)
	se.apply(&p)
}
