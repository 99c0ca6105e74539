package model

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/model/internal/position"
	"github.com/specwatch/specwatch/sample"
)

// TestAdvise: the rule of docs/report.md on the case, five positions of which the last
// two accept 6 % and 2 %.
func TestAdvise(t *testing.T) {
	a := []float64{0.70, 0.45, 0.25, 0.06, 0.02}
	adv, ok := position.Advise(a, 0.03)
	if !ok || adv.Configured != 5 || adv.Suggested != 3 {
		t.Fatalf("advice %+v, want 5 → 3", adv)
	}
	// keeping position 4 would need a_4 ≥ 0.03 × (1 + 0.70 + 0.45 + 0.25 + 0.06) = 0.0738
	if math.Abs(adv.Commit-2.48) > 1e-9 || math.Abs(adv.Kept-2.40) > 1e-9 {
		t.Errorf("commit %v → %v, want 2.48 → 2.40", adv.Commit, adv.Kept)
	}
	// a draft whose last position pays (8 % ≥ 3 % × 2.53) gets no advice; nor does one position
	if adv, ok := position.Advise([]float64{0.7, 0.5, 0.25, 0.08}, 0.03); ok {
		t.Errorf("advice for a paying draft: %+v", adv)
	}
	if adv, ok := position.Advise([]float64{0.01}, 0.03); ok {
		t.Errorf("advice to draft nothing: %+v", adv)
	}
	// a dearer position (a separate draft model) cuts earlier
	if adv, ok := position.Advise(a, 0.15); !ok || adv.Suggested != 2 {
		t.Errorf("cost 15 %%: %+v", adv)
	}
}

// TestPerPositionSeries: vLLM log lines with per-position lists become the report's
// per_position, with its conditional acceptance and the advice in the explanation; a line with
// another draft length starts the figures again.
func TestPerPositionSeries(t *testing.T) {
	set := NewSet(Options{})
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC).UnixNano()
	spec := func(i int, pos ...float64) {
		s := sample.Sample{Kind: sample.KindSpec, Engine: sample.EngineVLLM, Host: []byte("h"), Rank: []byte("Engine 000"), Time: t0 + int64(i)*5e9}
		sum := 0.0
		for j, p := range pos {
			s.PerPos[j] = p
			sum += p
		}
		s.NPos = len(pos)
		s.Set(sample.Commit, 1+sum)
		s.Set(sample.Accepted, 1000*sum)
		s.Set(sample.Drafted, 1000*float64(len(pos)))
		set.Observe(&s)
	}
	spec(0, 0.9, 0.6, 0.4) // another configuration, forgotten
	for i := 1; i <= 6; i++ {
		spec(i, 0.70, 0.45, 0.25, 0.06, 0.02)
	}
	r := set.wordedReport().Series[0]
	pp := r.PerPosition
	if pp == nil || len(pp.Acceptance) != 5 || pp.Samples != 6 {
		t.Fatalf("per position %+v", pp)
	}
	if math.Abs(pp.Acceptance[1]-0.45) > 1e-9 || math.Abs(pp.Conditional[1]-0.45/0.70) > 1e-3 || pp.Conditional[0] != 0.7 {
		t.Errorf("acceptance %v conditional %v", pp.Acceptance, pp.Conditional)
	}
	if pp.Advice == nil || pp.Advice.Suggested != 3 || !strings.Contains(r.Explanation, pp.Advice.Detail) {
		t.Errorf("advice %+v not in the explanation %q", pp.Advice, r.Explanation)
	}
	if r.Sources != nil {
		t.Errorf("sources %+v for a series of logs alone", r.Sources)
	}
}
