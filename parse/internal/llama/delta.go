package llama

import (
	"bytes"
	"math"
)

// maxImpls bounds the (server, implementation) pairs whose last statistics are remembered.
const maxImpls = 32

// DeltaKind says what Deltas.Apply made of a statistics line.
type DeltaKind uint8

const (
	// First: no earlier reading of the pair, the line is left cumulative (since a start the
	// input may not show).
	First DeltaKind = iota
	// Delta: the line now holds the change since the pair's previous reading.
	Delta
	// Reset: a counter went down, the server restarted; the line holds its own reading, which
	// counts from the restart.
	Reset
)

type reading struct {
	key  []byte // server \x00 implementation
	st   Stats
	pos  [MaxPos]float64
	seq  uint64
	used bool
}

// Deltas turns the cumulative statistics of each (server, implementation) into changes
// between consecutive readings. The zero value is ready.
type Deltas struct {
	r      [maxImpls]reading
	fresh  [4][]byte // servers seen starting: their first readings count from zero
	nfresh int
	seq    uint64
	key    []byte
}

// Restart says that server started: the next reading of each of its implementations counts
// from zero.
func (d *Deltas) Restart(server []byte) {
	for i := range d.r {
		if r := &d.r[i]; r.used && bytes.HasPrefix(r.key, server) && len(r.key) > len(server) && r.key[len(server)] == 0 {
			r.used = false
		}
	}
	f := &d.fresh[d.nfresh%len(d.fresh)]
	*f = append((*f)[:0], server...)
	d.nfresh++
}

// Apply makes st (and pos[:st.NPos]) of server's line the change since the previous reading
// of its implementation, and remembers the reading. Per-position changes come from counts,
// rate × #gen drafts, each off by up to 0.0005 × #gen drafts (3 printed decimals): exact below
// 1,000 drafts, and kept above only while that error stays under 1 % of a rate over the
// interval's drafts, else left out (NPos 0).
func (d *Deltas) Apply(server []byte, st *Stats, pos []float64) DeltaKind {
	d.key = append(append(append(d.key[:0], server...), 0), st.Name...)
	d.seq++
	r := d.find()
	prev := reading{}
	kind := Delta
	switch {
	case r != nil:
		prev = *r
	case !d.isFresh(server):
		kind = First
	}
	if r == nil {
		r = d.alloc()
	}
	cur := *st
	r.st, r.seq = cur, d.seq
	copy(r.pos[:], pos[:st.NPos])
	if kind == First {
		return First
	}
	p := &prev.st
	if cur.AccTokens < p.AccTokens || cur.GenTokens < p.GenTokens || cur.GenDrafts < p.GenDrafts ||
		cur.AccDrafts < p.AccDrafts || cur.Calls[0] < p.Calls[0] || cur.Calls[1] < p.Calls[1] || cur.Calls[2] < p.Calls[2] {
		return Reset
	}
	st.AccTokens, st.GenTokens = cur.AccTokens-p.AccTokens, cur.GenTokens-p.GenTokens
	st.GenDrafts, st.AccDrafts = cur.GenDrafts-p.GenDrafts, cur.AccDrafts-p.AccDrafts
	for k := range st.Calls {
		st.Calls[k] = cur.Calls[k] - p.Calls[k]
	}
	st.HasMean = false // a mean of the interval is 1 + accepted / drafts, not re-printed
	st.NPos = posDelta(pos, cur.NPos, cur.GenDrafts, prev.pos[:p.NPos], p.GenDrafts, cur.HasDrafts && p.HasDrafts)
	return Delta
}

func (d *Deltas) find() *reading {
	for i := range d.r {
		if r := &d.r[i]; r.used && bytes.Equal(r.key, d.key) {
			return r
		}
	}
	return nil
}

func (d *Deltas) isFresh(server []byte) bool {
	for i := 0; i < min(d.nfresh, len(d.fresh)); i++ {
		if bytes.Equal(d.fresh[i], server) {
			return true
		}
	}
	return false
}

// alloc takes a free reading, or the least recently used one.
func (d *Deltas) alloc() *reading {
	r := &d.r[0]
	for i := range d.r {
		o := &d.r[i]
		if !o.used {
			r = o
			break
		}
		if o.seq < r.seq {
			r = o
		}
	}
	r.used = true
	r.key = append(r.key[:0], d.key...)
	return r
}

// posDelta writes the per-position rates of the interval into pos (which holds the current
// cumulative rates, n of them) and returns their number; 0 when they cannot be told.
func posDelta(pos []float64, n int, drafts float64, prev []float64, prevDrafts float64, ok bool) int {
	dd := drafts - prevDrafts
	if !ok || dd <= 0 || 0.0005*(drafts+prevDrafts) > 0.01*dd {
		return 0
	}
	count := func(rate, drafts float64) float64 {
		c := rate * drafts
		if drafts < 1000 {
			c = math.Round(c) // exact: the rate was printed from a whole count
		}
		return c
	}
	last := 0
	for i := 0; i < n; i++ {
		c := count(pos[i], drafts)
		if i < len(prev) {
			c -= count(prev[i], prevDrafts)
		}
		r := c / dd
		if r > 1.01 || r < -0.01 {
			return 0 // more accepted than drafted: not one run's counters (a restart unseen)
		}
		pos[i] = min(max(r, 0), 1)
		if pos[i] > 0 {
			last = i + 1
		}
	}
	return last // trailing zeros left out, as the engine prints its own lists
}
