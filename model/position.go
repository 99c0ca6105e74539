package model

import (
	"math"
	"strings"

	"github.com/specwatch/specwatch/parse"
)

// positions accumulates acceptance per draft position: a_i, the share of verify steps whose
// draft token at position i (1-based) was accepted, as vLLM and llama.cpp state it (accepted
// at position i / verify steps; the counters' Δaccepted_per_pos / Δdrafts). Samples are
// weighted by the draft tokens they cover, so a quiet interval does not weigh like a busy one,
// and forgotten with the long acceptance half-life, so the figure follows a workload change.
type positions struct {
	n       int // positions in the current configuration
	w       float64
	sum     [parse.MaxPerPosition]float64
	t       int64
	samples int64
}

// add folds one sample's list into the sums. A list of another length is a new configuration
// (num_speculative_tokens changed): the sums start again.
func (p *positions) add(t int64, weight float64, v []float64, halfLife float64) {
	if len(v) != p.n {
		*p = positions{n: len(v)}
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

// acceptance is a_1 … a_n, into dst.
func (p *positions) acceptance(dst []float64) []float64 {
	for i := range p.n {
		dst = append(dst, p.sum[i]/p.w)
	}
	return dst
}

// perPosition feeds a sample's per-position list, if it has one and its source holds the figure.
func (se *Series) perPosition(s *parse.Sample) {
	was := se.fus.perPo
	if s.NPos == 0 || !take(&se.fus.perPo, s.Source, parse.SourceMetrics) {
		return
	}
	if was >= 0 && was != se.fus.perPo {
		se.pos = positions{} // the counters' figures replace the logs' averages
	}
	w := 1.0
	if d, ok := s.Get(parse.Drafted); ok {
		if d <= 0 {
			return // no draft in the interval: nothing was measured
		}
		w = d
	}
	se.pos.add(s.Time, w, s.PerPos[:s.NPos], float64(se.opts.LongHalfLife))
}

// PerPosition is acceptance per draft position: Acceptance[i] is the share of verify steps
// whose draft token at position i+1 was accepted, Conditional[i] the same given that position
// i was (Acceptance[i] / Acceptance[i-1]). Advice is set when positions at the end cost more
// than they add (docs/report.md).
type PerPosition struct {
	Acceptance  []float64       `json:"acceptance"`
	Conditional []float64       `json:"conditional"`
	Samples     int64           `json:"samples"`
	Advice      *PositionAdvice `json:"advice,omitempty"`
}

// PositionAdvice says a shorter draft would commit nearly the same tokens for less work.
type PositionAdvice struct {
	Configured         int     `json:"configured"`
	Suggested          int     `json:"suggested"`
	CommitLen          float64 `json:"commit_len"`
	SuggestedCommitLen float64 `json:"suggested_commit_len"`
	Detail             string  `json:"detail"`
}

// minPositionSamples: advice needs this many samples of one configuration.
const minPositionSamples = 5

// positionReport fills the report's per-position part and adds the advice to the explanation.
func (se *Series) positionReport(r *SeriesReport) {
	p := &se.pos
	if p.samples == 0 || p.n == 0 || p.w <= 0 {
		return
	}
	pp := &PerPosition{Samples: p.samples}
	a := p.acceptance(nil)
	for i, x := range a {
		pp.Acceptance = append(pp.Acceptance, round(x, 4))
		c := x
		if i > 0 {
			c = 0
			if a[i-1] > 0 {
				c = x / a[i-1]
			}
		}
		pp.Conditional = append(pp.Conditional, round(c, 4))
	}
	if p.samples >= minPositionSamples {
		pp.Advice = advise(a, se.opts.PositionCost, se.labels.Engine)
	}
	r.PerPosition = pp
	if pp.Advice != nil {
		if r.Explanation != "" {
			r.Explanation += " "
		}
		r.Explanation += pp.Advice.Detail
	}
}

// advise drops draft positions from the end while each adds fewer tokens per step than it
// costs: position k is worth its verify work when a_k ≥ cost × C_k, C_k = 1 + a_1 + … + a_k
// (throughput C/S falls when a position that adds a_k tokens costs cost × S; docs/report.md).
func advise(a []float64, cost float64, engine string) *PositionAdvice {
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
		return nil
	}
	var pcts []string
	for _, x := range a[k:] {
		pcts = append(pcts, sprintf("%.0f %%", x*100))
	}
	list := strings.Join(pcts, " and ")
	if len(pcts) > 2 {
		list = strings.Join(pcts[:len(pcts)-1], ", ") + " and " + pcts[len(pcts)-1]
	}
	which := sprintf("positions %d-%d accept %s", k+1, n, list)
	if k+1 == n {
		which = sprintf("position %d accepts %s", n, list)
	}
	d := sprintf("%s %d is too high: %s; %d would commit %.2f of the %.2f tokens per verify step, with %d fewer draft positions to verify (each costs about %.0f %% of a step).",
		draftOption(engine), n, which, k, c, commit, n-k, cost*100)
	return &PositionAdvice{Configured: n, Suggested: k, CommitLen: round(commit, 3), SuggestedCommitLen: round(c, 3), Detail: d}
}

// draftOption names the setting of the draft length as the engine spells it.
func draftOption(engine string) string {
	switch engine {
	case parse.EngineVLLM.String():
		return "num_speculative_tokens"
	case parse.EngineLlamaCpp.String():
		return "the draft length (--spec-draft-n-max, --draft-max in older builds)"
	}
	return "the draft length"
}
