// Package position accumulates acceptance per draft position and decides how many positions
// pay for their verify work. It is the model's, kept apart because it depends on nothing else
// in it.
package position

import (
	"fmt"
	"math"
	"strings"
)

// Max is the most positions kept (parse.MaxPerPosition).
const Max = 16

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

// Advice says a shorter draft commits nearly the same tokens for less work.
type Advice struct {
	Configured, Suggested int
	Commit, Kept          float64 // tokens per verify step with all positions, with the suggested ones
	Detail                string
}

// Advise drops draft positions from the end while each adds fewer tokens per step than it
// costs. With commit length C and step time S, a position that adds a_k tokens per step and
// costs cost × S raises throughput C/S only if a_k ≥ cost × C_k, C_k = 1 + a_1 + … + a_k. The
// advice names the setting as option spells it; ok is false when every position pays.
func Advise(a []float64, cost float64, option string) (Advice, bool) {
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
	var pcts []string
	for _, x := range a[k:] {
		pcts = append(pcts, fmt.Sprintf("%.0f %%", x*100))
	}
	list := pcts[0]
	if len(pcts) > 1 {
		list = strings.Join(pcts[:len(pcts)-1], ", ") + " and " + pcts[len(pcts)-1]
	}
	which := fmt.Sprintf("positions %d-%d accept %s", k+1, n, list)
	if k+1 == n {
		which = fmt.Sprintf("position %d accepts %s", n, list)
	}
	d := fmt.Sprintf("%s %d is too high: %s; %d would commit %.2f of the %.2f tokens per verify step, with %d fewer draft positions to verify (each costs about %.0f %% of a step).",
		option, n, which, k, c, commit, n-k, cost*100)
	return Advice{Configured: n, Suggested: k, Commit: commit, Kept: c, Detail: d}, true
}
