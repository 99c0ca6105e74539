package model

import "github.com/specwatch/specwatch/model/internal/slowdrift"

// acceptance feeds one commit length to acceptance_drop's two tests: the sequential test of
// window means against a learning baseline (fast, for falls of minutes), and the slow-drift
// test of the last half hour against the baseline an hour behind (for slides over hours, which
// the learning baseline follows down). Either raises the one kind; it clears when neither
// suspects a drop.
func (se *Series) acceptance(t int64, c float64) {
	se.drop.observe(t, c, se)
	se.peer.accept.Update(t, c)
	if se.Active(CommitLenStuck) {
		se.peer.accept.Reset() // a stuck drafter is its own finding; rank_skew starts afresh after it
	}
	if se.rs.cmp.Pending() {
		se.rs.cmp.AddAccept(c)
		se.restartJudge(t)
	}
	switch se.slow.Add(c) {
	case slowdrift.Raise:
		se.raise(AcceptanceDrop, t, se.slow.Detail)
	case slowdrift.Clear:
		if se.drop.cusum.Stat() == 0 {
			se.clear(AcceptanceDrop, t)
		}
	}
}
