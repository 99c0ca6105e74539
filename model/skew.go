package model

import (
	"strings"
	"time"

	"github.com/specwatch/specwatch/model/internal/estimate"
	"github.com/specwatch/specwatch/model/internal/peers"
)

// peerGroup is the ranks of one engine process: the series whose keys differ only in the rank.
type peerGroup struct {
	members  []*Series
	profiles []peers.Profile // scratch for one check
	scratch  []float64
}

// skewDetector is rank_skew, a series' side of it: one rank off the other ranks of its engine
// process, in commit length or in steps at the same context.
type skewDetector struct {
	group     *peerGroup
	judge     peers.Judge
	accept    estimate.EWMA // of window means of commit length, half-life skewHalfLife
	lastCheck int64
}

// skewHalfLife averages acceptance over enough requests that the text each rank happens to
// serve does not decide; skewEvery is the rhythm of the comparison; skewRecent is how old a
// peer's latest sample may be for it to count.
const (
	skewHalfLife = 30 * time.Minute
	skewEvery    = int64(time.Minute)
	skewRecent   = int64(10 * time.Minute)
)

// joinGroup puts a new series among the ranks of its engine process.
func (m *Set) joinGroup(se *Series) {
	g := m.group(se)
	g.members = append(g.members, se)
	se.det.skew = skewDetector{group: g, judge: peers.NewJudge(peers.Options{}), accept: estimate.NewEWMA(skewHalfLife)}
}

// group is the group of se's engine process (host, unit, engine, container: its key but the rank).
func (m *Set) group(se *Series) *peerGroup {
	if m.groups == nil {
		m.groups = make(map[string]*peerGroup)
	}
	l := se.labels
	k := strings.Join([]string{l.Host, l.Unit, l.Engine, l.Container, l.Namespace, l.Pod}, "\x00")
	g := m.groups[k]
	if g == nil {
		g = &peerGroup{}
		m.groups[k] = g
	}
	return g
}

// profile is the series as its peers see it at t.
func (se *Series) profile(t int64) peers.Profile {
	var p peers.Profile
	if se.samples == 0 || t-se.last > skewRecent {
		return p
	}
	if a := &se.det.skew.accept; a.N() > 0 {
		p.Accept = a.Mean()
	}
	if se.fit.N() >= se.warmup() && se.cur.has&curCtx != 0 {
		p.A, p.B = se.fit.Coef()
		p.Lo, p.Hi, p.Ctx, p.HasStep = se.lo, se.hi, se.cur.ctx, true
	}
	p.AcceptActive = se.Active(CommitLenStuck)
	return p
}

// skewCheck compares the series with the other ranks of its process.
func (se *Series) skewCheck(t int64) { se.feed(RankSkew, se.at(obsPoint, t)) }

// acceptWindow takes the mean commit length of a window acceptance_drop closed at t.
func (d *skewDetector) acceptWindow(se *Series, t int64, m float64) {
	d.accept.Update(t, m)
	if se.Active(CommitLenStuck) {
		d.accept.Reset() // a stuck drafter is its own finding; rank_skew starts afresh after it
	}
}

// observe compares the series with the other ranks of its process, once a minute of its time.
func (d *skewDetector) observe(se *Series, o *obs) {
	t, g := o.t, d.group
	if g == nil || len(g.members) < 2 || t-d.lastCheck < skewEvery {
		return
	}
	d.lastCheck = t
	g.profiles = g.profiles[:0]
	for _, o := range g.members {
		if o != se {
			g.profiles = append(g.profiles, o.profile(t))
		}
	}
	self := se.profile(t)
	acc, step, okA, okS, s := peers.Ratios(self, g.profiles, g.scratch)
	g.scratch = s
	va, vs := d.judge.Check(self, acc, step, okA, okS)
	switch {
	case va.Raised || vs.Raised:
		se.raise(RankSkew, t, peers.Evidence(self, va.Raised, acc, step, len(g.profiles)))
	case !va.Off && !vs.Off:
		se.clear(RankSkew, t)
	}
}

// clear forgets the consecutive checks and keeps the acceptance average: it spans half an hour
// of windows, and the peers compare with it.
func (d *skewDetector) clear()                 { d.judge.Forget() }
func (d *skewDetector) reconfigure(o *Options) {} // its thresholds are peers' constants
