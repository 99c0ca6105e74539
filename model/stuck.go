package model

import (
	"github.com/specwatch/specwatch/model/internal/hysteresis"
	"github.com/specwatch/specwatch/model/schema"
)

// stuckDetector is commit_len_stuck, exact-count logic: a commit length of 1.00 (within the
// engines' rounding) for StuckSamples consecutive decode samples with requests running means
// the drafter contributes nothing. No statistics: 1.00 is the floor, and healthy drafters
// never sit on it.
type stuckDetector struct{ streak hysteresis.Streak }

// stuckTest says whether a commit length is evidence about the drafter, and how to word the
// episode: the requests running, and whether the samples are requests (llama.cpp) or intervals.
type stuckTest struct {
	judge    bool
	running  float64
	requests bool
}

// stuckCheck feeds commit_len_stuck one commit length c at t, stuck or not.
func (se *Series) stuckCheck(t int64, stuck bool, c float64, st stuckTest) {
	o := se.at(obsCommit, t)
	o.stuck, o.commit, o.st = stuck, c, st
	se.feed(CommitLenStuck, o)
}

func (d *stuckDetector) observe(se *Series, o *obs) {
	d.streak.Observe(o.stuck)
	switch {
	case o.stuck && d.streak.Bad >= se.opts.StuckSamples:
		code, depth := schema.CodeStuckSamples, 0.0
		if o.st.requests {
			code = schema.CodeStuckRequests
		}
		if se.cur.has&curDepth != 0 && se.cur.depth > 0.25 {
			depth = se.cur.depth // the metrics contradict a stuck drafter: say so
		}
		se.raise(CommitLenStuck, o.t, schema.Ev(code, o.commit, float64(d.streak.Bad), o.st.running, depth))
	case !o.stuck && d.streak.Good >= se.opts.StuckClear:
		se.clear(CommitLenStuck, o.t)
	}
}

func (d *stuckDetector) clear()                 { d.streak = hysteresis.Streak{} }
func (d *stuckDetector) reconfigure(o *Options) {} // its counts are read from the options at each sample
