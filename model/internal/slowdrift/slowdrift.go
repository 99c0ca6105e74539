// Package slowdrift detects a gradual fall of a mean (acceptance sliding over hours) that a
// sequential test against a learning baseline misses: such a baseline follows a slow drift
// down, so the shortfall it sees never grows. Here the baseline is kept an hour behind: the
// mean of the latest half hour is compared with what the series did before the last hour, so a
// drift is measured against where it started, and the spread of half-hour means (what text
// alone moves them by) sets how far is too far.
package slowdrift

import (
	"math"
	"time"

	"github.com/specwatch/specwatch/model/internal/estimate"
	"github.com/specwatch/specwatch/model/schema"
)

// Options shape the test; zero fields take the defaults.
type Options struct {
	// Block is the number of values per block; Current the blocks in the current mean; Delay
	// the blocks between the current mean's end and the newest one the baseline holds.
	// Fed with means of 30 samples at one sample per 2 s, the defaults are 5 min, 30 min, 1 h
	// (the model feeds samples, with Block 150).
	Block, Current, Delay int
	// PerValue is how many samples one value averages (default 30), for the detail sentence.
	PerValue int
	// HalfLife of the baseline, in blocks (default 72: 6 h at the default block).
	HalfLife int
	// Warmup is the number of half-hour means in the baseline before alarms (default 36: 3 h).
	Warmup int
	// MinDrop is the smallest relative fall reported (default 0.07); Z how many baseline
	// spreads of the half-hour mean the fall must also exceed (default 4).
	MinDrop, Z float64
	// Confirm consecutive blocks past both thresholds raise; as many below MinDrop/2 clear.
	Confirm int
}

func (o *Options) defaults() {
	set := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	set(&o.Block, 5)
	set(&o.PerValue, 30)
	set(&o.Current, 6)
	set(&o.Delay, 12)
	set(&o.HalfLife, 72)
	set(&o.Warmup, 36)
	set(&o.Confirm, 2)
	if o.MinDrop <= 0 {
		o.MinDrop = 0.07
	}
	if o.Z <= 0 {
		o.Z = 4
	}
}

// minRelSpread floors the baseline spread at 0.5 % of its mean: a series that printed one
// figure for hours must not alarm on its first wobble.
const minRelSpread = 0.005

// maxBlocks bounds the rings (Current + Delay blocks).
const maxBlocks = 64

// Detector is the test. It is a value type and allocates nothing after New.
type Detector struct {
	o      Options
	block  estimate.BlockMean
	recent [maxBlocks]float64 // block means, newest at (next-1)
	means  [maxBlocks]float64 // the current means computed at each block, same ring
	next   int
	blocks int
	base   estimate.EWMA // of half-hour means, Delay blocks old; time is the block index
	bad    int
	good   int
	alarm  bool
	// Last evaluation, for the detail sentence.
	cur, ref, spread float64
}

// New returns a detector with o's settings.
func New(o Options) Detector {
	o.defaults()
	if o.Current+o.Delay > maxBlocks {
		o.Current, o.Delay = min(o.Current, maxBlocks/2), maxBlocks-min(o.Current, maxBlocks/2)
	}
	return Detector{o: o, block: estimate.NewBlockMean(o.Block), base: estimate.NewEWMA(time.Duration(o.HalfLife))}
}

// Retune takes o's thresholds (MinDrop, Z, Confirm); the blocks, means and baseline stay, as
// do o's other settings, which shape them.
func (d *Detector) Retune(o Options) {
	o.defaults()
	d.o.MinDrop, d.o.Z, d.o.Confirm = o.MinDrop, o.Z, o.Confirm
}

// Event is what an Add changed.
type Event uint8

const (
	None Event = iota
	Raise
	Clear
)

// Add records one value and reports whether it raised or cleared the alarm.
func (d *Detector) Add(v float64) Event {
	m, full := d.block.Add(v)
	if !full {
		return None
	}
	o := &d.o
	d.recent[d.next] = m
	d.blocks++
	n := min(d.blocks, o.Current)
	sum := 0.0
	for i := 1; i <= n; i++ {
		sum += d.recent[(d.next-i+1+maxBlocks)%maxBlocks]
	}
	cur := sum / float64(n)
	d.means[d.next] = cur
	d.next = (d.next + 1) % maxBlocks
	// The baseline takes the half-hour mean that ended Delay blocks ago, once it is a whole
	// one, and not while a drop is suspected, or the drop would become the reference.
	if d.blocks > o.Delay+o.Current-1 && d.bad == 0 && !d.alarm {
		d.base.Update(int64(d.blocks), d.means[(d.next-1-o.Delay+maxBlocks)%maxBlocks])
	}
	if n < o.Current || d.base.N() < o.Warmup {
		return None
	}
	ref := d.base.Mean()
	spread := math.Max(d.base.Std(), minRelSpread*ref)
	d.cur, d.ref, d.spread = cur, ref, spread
	fall := 1 - cur/ref
	switch {
	case fall >= o.MinDrop && ref-cur >= o.Z*spread:
		d.bad, d.good = d.bad+1, 0
	case fall < o.MinDrop/2:
		d.bad, d.good = 0, d.good+1
	default:
		d.bad, d.good = 0, 0
	}
	switch {
	case !d.alarm && d.bad >= o.Confirm:
		d.alarm = true
		return Raise
	case d.alarm && d.good >= o.Confirm:
		d.alarm = false
		return Clear
	}
	return None
}

// Alarm reports whether the drop is active.
func (d *Detector) Alarm() bool { return d.alarm }

// Evidence is the latest evaluation's numbers (schema.CodeSlowDrift).
func (d *Detector) Evidence() schema.Evidence {
	return schema.Ev(schema.CodeSlowDrift, d.cur, float64(d.o.PerValue*d.o.Block*d.o.Current), d.ref, d.spread, 100*(1-d.cur/d.ref))
}
