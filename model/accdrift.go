package model

import "github.com/specwatch/specwatch/model/internal/slowdrift"

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
	// The other tests take the drop test's window means: a block mean and an EWMA update per
	// sample for each cost 70 instructions of a sample's 2,400 (cachegrind).
	m, full := se.observeDrop(t, c)
	if !full {
		return
	}
	se.peer.accept.Update(t, m)
	if se.Active(CommitLenStuck) {
		se.peer.accept.Reset() // a stuck drafter is its own finding; rank_skew starts afresh after it
	}
	switch se.slow.Add(m) {
	case slowdrift.Raise:
		se.raise(AcceptanceDrop, t, se.slow.Detail)
	case slowdrift.Clear:
		if se.drop.Quiet() {
			se.clear(AcceptanceDrop, t)
		}
	}
}
