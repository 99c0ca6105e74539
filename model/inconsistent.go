package model

import (
	"math"

	"github.com/specwatch/specwatch/model/internal/hysteresis"
	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/sample"
)

// inconsistentDetector is metrics_inconsistent: it raises after InconsistentSamples
// contradictions of the engine's figures in a row and clears after as many consistent ones.
type inconsistentDetector struct{ streak hysteresis.Streak }

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

// inconsistentCheck feeds metrics_inconsistent one test at t: bad, with what contradicted.
func (se *Series) inconsistentCheck(t int64, bad bool, ev schema.Evidence) {
	o := se.at(obsContra, t)
	o.bad, o.ev = bad, ev
	se.feed(MetricsInconsistent, o)
}

func (d *inconsistentDetector) observe(se *Series, o *obs) {
	d.streak.Observe(o.bad)
	n := se.opts.InconsistentSamples
	switch {
	case o.bad && d.streak.Bad >= n:
		se.raise(MetricsInconsistent, o.t, o.ev)
	case !o.bad && d.streak.Good >= n:
		se.clear(MetricsInconsistent, o.t)
	}
}

func (d *inconsistentDetector) clear()                 { d.streak = hysteresis.Streak{} }
func (d *inconsistentDetector) reconfigure(o *Options) {} // its count and tolerances are read at each sample
