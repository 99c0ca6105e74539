package model

import (
	"time"

	"github.com/specwatch/specwatch/model/internal/drift"
	"github.com/specwatch/specwatch/model/internal/slowdrift"
	"github.com/specwatch/specwatch/model/schema"
)

// dropDetector is acceptance_drop, two tests of commit length: the sequential test of window
// means against a learning baseline (fast, for falls of minutes), and the slow-drift test of
// the last half hour against the baseline an hour behind (for slides over hours, which the
// learning baseline follows down). Either raises the one kind; it clears when neither
// suspects a drop.
type dropDetector struct {
	drop drift.Drop
	slow slowdrift.Detector
	// window is the mean of the window the latest sample closed (closed true), which rank_skew
	// compares across ranks.
	window float64
	closed bool
}

// windowTime sizes the drop test's windows at about a minute (of at least minWindow samples);
// earlyWindows of them spanning armAfter arm it, so that it judges within ten minutes of the
// engine's first line at any cadence (the window that crosses nine minutes ends before ten).
const (
	windowTime   = time.Minute
	minWindow    = 5
	earlyWindows = 8
	armAfter     = 9 * time.Minute
)

func newDropDetector(o *Options) dropDetector {
	return dropDetector{drop: drift.NewDrop(dropOptions(o)), slow: slowdrift.New(o.SlowDrift)}
}

func dropOptions(o *Options) drift.Options {
	return drift.Options{Window: o.Window, HalfLife: o.LongHalfLife, Warmup: o.WarmupWindows,
		K: o.DropK, H: o.DropH, MinEffect: o.DropMinEffect,
		WindowTime: windowTime, MinWindow: minWindow, ArmAfter: armAfter, EarlyWindows: earlyWindows}
}

// acceptance feeds one commit length to the detectors that judge acceptance: a restart's
// comparison, acceptance_drop, and through its windows rank_skew.
func (se *Series) acceptance(t int64, c float64) {
	o := se.at(obsCommit, t)
	o.commit = c
	se.feed(RestartRegression, o)
	if c <= 1.005 {
		return // the floor is commit_len_stuck's to judge; a drop test fed it stays raised long after
	}
	se.feed(AcceptanceDrop, o)
	if d := &se.det.drop; d.closed {
		se.det.skew.acceptWindow(se, t, d.window)
	}
}

func (d *dropDetector) observe(se *Series, o *obs) {
	t, c := o.t, o.commit
	// The slow test takes samples, not the drop test's windows, whose sizes follow the cadence.
	switch d.slow.Add(c) {
	case slowdrift.Raise:
		se.raise(AcceptanceDrop, t, d.slow.Evidence())
	case slowdrift.Clear:
		if d.drop.Quiet() {
			se.clear(AcceptanceDrop, t)
		}
	}
	// The other tests take the drop test's window means: a block mean and an EWMA update per
	// sample for each cost 70 instructions of a sample's 2,400 (cachegrind).
	m, full, ev := d.drop.Add(t, c)
	d.window, d.closed = m, full
	if !full {
		return
	}
	switch {
	case ev == drift.Raise:
		w := &d.drop
		se.raise(AcceptanceDrop, t, schema.Ev(schema.CodeDropWindows, w.Mean, w.Base, w.Spread, 100*(1-w.Mean/w.Base),
			float64(w.RunLength()), float64(se.opts.Window)))
	case ev == drift.Clear && !d.slow.Alarm():
		se.clear(AcceptanceDrop, t)
	}
}

// clear drops the unfinished window and keeps both baselines: the slow test's blocks count
// samples, not time, and its baseline is an hour behind anyway.
func (d *dropDetector) clear() { d.drop.Discard(); d.closed = false }

func (d *dropDetector) reconfigure(o *Options) {
	d.drop.Retune(dropOptions(o))
	d.slow.Retune(o.SlowDrift)
}
