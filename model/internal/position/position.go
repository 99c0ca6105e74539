// Package position accumulates acceptance per draft position and decides how many positions
// pay for their verify work. It is the model's, kept apart because it depends on nothing else
// in it.
package position

import (
	"math"
)

// Max is the most positions kept: at least parse.MaxPerPosition (llama.cpp's n-gram drafts
// run to 64 tokens; model checks the bound at compile time).
const Max = 64

// Acc accumulates a_i, the share of verify steps whose draft token at position i (1-based) was
// accepted, as vLLM and llama.cpp state it (accepted at position i / verify steps). Samples are
// weighted by the draft tokens they cover, so a quiet interval does not weigh like a busy one,
// and forgotten with a half-life, so the figure follows a workload change. The zero value is
// empty.
type Acc struct {
	n       int // positions in the current configuration
	w       float64
	sum     [Max]float64
	t       int64 // Unix ns of the latest sample
	samples int64
}

// Add folds one sample's list (at most Max values) into the sums. A list of another length is
// a new configuration (the draft length changed): the sums start again. halfLife is in ns.
func (p *Acc) Add(t int64, weight float64, v []float64, halfLife float64) {
	v = v[:min(len(v), Max)]
	if len(v) != p.n {
		*p = Acc{n: len(v)}
	}
	if p.samples > 0 && t > p.t && halfLife > 0 {
		f := math.Exp2(-float64(t-p.t) / halfLife)
		p.w *= f
		for i := range p.n {
			p.sum[i] *= f
		}
	}
	p.t = max(p.t, t)
	p.w += weight
	for i, x := range v {
		p.sum[i] += weight * x
	}
	p.samples++
}

// Set makes v (at most Max values) the figures, for a list that is already the whole
// history: llama.cpp's cumulative statistics. A list of another length still starts the
// sample count again.
func (p *Acc) Set(t int64, v []float64) {
	v = v[:min(len(v), Max)]
	samples := p.samples
	if len(v) != p.n {
		samples = 0
	}
	*p = Acc{n: len(v), w: 1, t: t, samples: samples + 1}
	copy(p.sum[:], v)
}

// Samples is the number of samples of the current configuration.
func (p *Acc) Samples() int64 { return p.samples }

// Acceptance appends a_1 … a_n to dst; nothing before the first sample.
func (p *Acc) Acceptance(dst []float64) []float64 {
	if p.w <= 0 {
		return dst
	}
	for i := range p.n {
		dst = append(dst, p.sum[i]/p.w)
	}
	return dst
}

// Conditional is a_i / a_(i−1), the acceptance at each position given the one before was
// accepted (the first is a_1; 0 after a position that accepts nothing).
func Conditional(a []float64) []float64 {
	c := make([]float64, len(a))
	for i, x := range a {
		switch {
		case i == 0:
			c[i] = x
		case a[i-1] > 0:
			c[i] = x / a[i-1]
		}
	}
	return c
}

// Advice says a shorter draft commits nearly the same tokens for less work.
type Advice struct {
	Configured, Suggested int
	Commit, Kept          float64 // tokens per verify step with all positions, with the suggested ones
}

// Advise drops draft positions from the end while each adds fewer tokens per step than it
// costs. With commit length C and step time S, a position that adds a_k tokens per step and
// costs cost × S raises throughput C/S only if a_k ≥ cost × C_k, C_k = 1 + a_1 + … + a_k; ok
// is false when every position pays.
func Advise(a []float64, cost float64) (Advice, bool) {
	n := len(a)
	commit := 1.0
	for _, x := range a {
		commit += x
	}
	k, c := n, commit
	for k > 1 && a[k-1] < cost*c {
		c -= a[k-1]
		k--
	}
	if k == n {
		return Advice{}, false
	}
	return Advice{Configured: n, Suggested: k, Commit: commit, Kept: c}, true
}

// DraftSize counts the drafts behind a per-position list, which llama.cpp's requests state
// without: they pool by drafts (the rates are accepted at position i / drafts). The zero
// value is ready.
type DraftSize struct{ tokens, drafts float64 }

// Drafts returns the drafts a list covers. Its rates sum to accepted / drafts, so a list that
// accepted a token gives them (rounded: the rates are printed to 3 decimals); one that
// accepted none gives nothing, and then the drafted tokens over the draft size learned (or
// one draft per token) stand in. A draft is a verify step, so steps, when known, bound them.
// 0 means nothing was drafted.
func (d *DraftSize) Drafts(v []float64, accepted, drafted, steps float64) float64 {
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	n := 0.0
	switch {
	case accepted > 0 && sum > 0:
		n = math.Round(accepted / sum)
		if drafted > 0 && n > 0 {
			d.tokens, d.drafts = d.tokens+drafted, d.drafts+n
		}
	case drafted > 0 && d.drafts > 0:
		n = math.Round(drafted * d.drafts / d.tokens)
	case drafted > 0:
		n = drafted
	default:
		return 0
	}
	if steps > 0 {
		n = min(n, steps)
	}
	return max(n, 1)
}
