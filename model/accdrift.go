package model

import (
	"github.com/specwatch/specwatch/model/internal/drift"
	"github.com/specwatch/specwatch/model/internal/slowdrift"
	"github.com/specwatch/specwatch/model/schema"
)

// acceptance feeds one commit length to acceptance_drop's two tests: the sequential test of
// window means against a learning baseline (fast, for falls of minutes), and the slow-drift
// test of the last half hour against the baseline an hour behind (for slides over hours, which
// the learning baseline follows down). Either raises the one kind; it clears when neither
// suspects a drop.
func (se *Series) acceptance(t int64, c float64) {
	if se.rs.cmp.Pending() {
		se.rs.cmp.AddAccept(c)
		se.restartJudge(t)
	}
	if c <= 1.005 {
		return // the floor is commit_len_stuck's to judge; a drop test fed it stays raised long after
	}
	// The slow test takes samples, not the drop test's windows, whose sizes follow the cadence.
	switch se.slow.Add(c) {
	case slowdrift.Raise:
		se.raise(AcceptanceDrop, t, se.slow.Evidence())
	case slowdrift.Clear:
		if se.drop.Quiet() {
			se.clear(AcceptanceDrop, t)
		}
	}
	// The other tests take the drop test's window means: a block mean and an EWMA update per
	// sample for each cost 70 instructions of a sample's 2,400 (cachegrind).
	m, full, ev := se.drop.Add(t, c)
	if !full {
		return
	}
	switch {
	case ev == drift.Raise:
		d := &se.drop
		se.raise(AcceptanceDrop, t, schema.Ev(schema.CodeDropWindows, d.Mean, d.Base, d.Spread, 100*(1-d.Mean/d.Base),
			float64(d.RunLength()), float64(se.opts.Window)))
	case ev == drift.Clear && !se.slow.Alarm():
		se.clear(AcceptanceDrop, t)
	}
	se.peer.accept.Update(t, m)
	if se.Active(CommitLenStuck) {
		se.peer.accept.Reset() // a stuck drafter is its own finding; rank_skew starts afresh after it
	}
}
