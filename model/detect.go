package model

import (
	"math"

	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/sample"
)

// stuckTest says whether a commit length is evidence about the drafter, and how to word the
// episode: the requests running, and whether the samples are requests (llama.cpp) or intervals.
type stuckTest struct {
	judge    bool
	running  float64
	requests bool
}

// stuckCheck is exact-count logic: a commit length of 1.00 (within the engines' rounding) for
// StuckSamples consecutive decode samples with requests running means the drafter contributes
// nothing. No statistics: 1.00 is the floor, and healthy drafters never sit on it.
func (se *Series) stuckCheck(t int64, stuck bool, c float64, st stuckTest) {
	se.stuck.Observe(stuck)
	o := se.opts
	switch {
	case stuck && se.stuck.Bad >= o.StuckSamples:
		code, depth := schema.CodeStuckSamples, 0.0
		if st.requests {
			code = schema.CodeStuckRequests
		}
		if se.cur.has&curDepth != 0 && se.cur.depth > 0.25 {
			depth = se.cur.depth // the metrics contradict a stuck drafter: say so
		}
		se.raise(CommitLenStuck, t, schema.Ev(code, c, float64(se.stuck.Bad), st.running, depth))
	case !stuck && se.stuck.Good >= o.StuckClear:
		se.clear(CommitLenStuck, t)
	}
}

// checkConsistency tests the invariants a key=value or decode line can state by itself:
// commit length = 1 + accepted depth (= 1 + accepted drafts), and, when the step is logged
// beside the throughput, tok/s = commit × running / step.
func (se *Series) checkConsistency(s *sample.Sample, commit float64, hasCommit bool) {
	o := se.opts
	if d, ok := s.Get(sample.AcceptedDepth); ok {
		se.cur.depth, se.cur.has = d, se.cur.has|curDepth
		if hasCommit {
			off := math.Abs(commit - 1 - d)
			se.inconsistentCheck(s.Time, off > o.DepthTolerance, schema.Ev(schema.CodeDepthMismatch, commit, d, off))
		}
	} else if d, ok := s.Get(sample.AcceptedDrafts); ok && hasCommit {
		se.inconsistentCheck(s.Time, math.Abs(commit-1-d) > o.DepthTolerance, schema.Ev(schema.CodeDraftsMismatch, commit, d))
	}
	step, hasStep := s.Get(sample.StepSeconds)
	tps, hasTPS := s.Get(sample.GenTPS)
	running, hasRunning := s.Get(sample.Running)
	if hasStep && hasTPS && hasRunning && hasCommit && step > 0 && tps > 0 {
		implied := commit * running / step
		se.inconsistentCheck(s.Time, math.Abs(tps-implied)/tps > o.TPSTolerance,
			schema.Ev(schema.CodeTPSMismatch, tps, commit, running, step*1000, implied))
	}
}

// inconsistentCheck raises metrics_inconsistent after InconsistentSamples contradictions in a
// row and clears it after as many consistent samples.
func (se *Series) inconsistentCheck(t int64, bad bool, ev schema.Evidence) {
	se.inconsistent.Observe(bad)
	n := se.opts.InconsistentSamples
	switch {
	case bad && se.inconsistent.Bad >= n:
		se.raise(MetricsInconsistent, t, ev)
	case !bad && se.inconsistent.Good >= n:
		se.clear(MetricsInconsistent, t)
	}
}

// collapseCheck raises throughput_collapse when measured tok/s stays below CollapseRatio of
// what the model predicts at this context, commit length and batch (idle artefacts are
// excluded before this point), and clears it once it is back above CollapseClearRatio.
func (se *Series) collapseCheck(p *point, pred float64) {
	o := se.opts
	ratio := p.tps / pred
	switch {
	case ratio < o.CollapseRatio:
		se.collapse.Observe(true)
	case ratio > o.CollapseClearRatio:
		se.collapse.Observe(false)
	default:
		se.collapse.Good = 0 // in between: neither evidence of collapse nor of recovery
	}
	switch {
	case se.collapse.Bad >= o.CollapseSamples:
		se.raise(ThroughputCollapse, p.t, schema.Ev(schema.CodeCollapse, p.tps, 100*ratio, pred, p.ctx, p.commit, float64(se.collapse.Bad)))
	case se.collapse.Good >= o.CollapseSamples:
		se.clear(ThroughputCollapse, p.t)
	}
}
