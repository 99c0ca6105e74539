package scrape

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/specwatch/specwatch/sample"
	"github.com/specwatch/specwatch/sim/enginemetrics"
)

// TestTRTLLMDrain: the simulated trtllm-serve's read-and-drain endpoint, scraped 1,000 times
// while iterations arrive at rates from none to past its queue's bound, and with responses
// replayed: every record is applied exactly once per attention-DP rank, every record the
// queue dropped is counted, and the commit length is the counters' ratio.
func TestTRTLLMDrain(t *testing.T) {
	eng := &enginemetrics.TRTLLM{Cap: 64, Ranks: 2}
	srv := httptest.NewServer(eng)
	defer srv.Close()
	clk, sk := newFakeClock(), &sink{}
	m := NewMetrics(prometheus.NewRegistry())
	src := newSource(t, clk, sk, m, 0, Target{URL: srv.URL + "/prometheus/metrics", IterStatsURL: srv.URL + "/metrics"})
	repeats := 0
	for i := range 1000 {
		n := []int{1, 0, 3, 7, 0, 12, 2, 5}[i%8]
		if i%97 == 50 {
			n = 45 // 90 records for a queue of 64: 26 dropped
		}
		eng.Advance(n)
		if i%13 == 5 {
			eng.RepeatLast()
			repeats++
		}
		if err := src.Scrape(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		clk.advance(every)
	}
	type sums struct{ acc, drafted, steps float64 }
	got := map[string]*sums{}
	for _, s := range sk.take() {
		if s.Engine != sample.EngineTRTLLM {
			t.Fatalf("engine %s", s.Engine)
		}
		g := got[string(s.Rank)]
		if g == nil {
			g = &sums{}
			got[string(s.Rank)] = g
		}
		if !s.Has(sample.Steps) {
			continue
		}
		a, st := s.Value(sample.Accepted), s.Value(sample.Steps)
		near(t, "a sample's commit length", s.Value(sample.Commit), (a+st)/st, 1e-12)
		g.acc += a
		g.drafted += s.Value(sample.Drafted)
		g.steps += st
	}
	if len(got) != 2 || got[""] == nil || got["1"] == nil {
		t.Fatalf("series %v, want ranks 0 and 1 only (the exposition's aggregate is no rank)", keys(got))
	}
	var dropped, delivered float64
	for r, name := range []string{"", "1"} {
		produced, del, drop := eng.Truth(r)
		g := got[name]
		if g.acc != del.Accepted || g.steps != del.Requests || g.drafted != del.Draft {
			t.Errorf("%s: applied accepted %v steps %v drafted %v, served %v %v %v", name, g.acc, g.steps, g.drafted, del.Accepted, del.Requests, del.Draft)
		}
		if produced.Records != del.Records+float64(drop) || drop == 0 {
			t.Errorf("%s: the simulator produced %v, served %v, dropped %d", name, produced.Records, del.Records, drop)
		}
		commit := (g.acc + g.steps) / g.steps
		truth := (produced.Accepted + produced.Requests) / produced.Requests
		near(t, name+" commit length against every record the engine produced", commit, truth, 0.005)
		t.Logf("%s: commit length %.6f from the samples, %.6f over every record produced", name, commit, truth)
		dropped += float64(drop)
		delivered += del.Records
	}
	name := src.targets[0].name
	if v := testutil.ToFloat64(m.dropped.WithLabelValues(name)); v != dropped {
		t.Errorf("drops counted %v, the queue dropped %v", v, dropped)
	}
	if v := testutil.ToFloat64(m.records.WithLabelValues(name, outcomeApplied)); v != delivered {
		t.Errorf("records applied %v, served once %v", v, delivered)
	}
	if v := testutil.ToFloat64(m.records.WithLabelValues(name, outcomeDuplicate)); v != float64(repeats) {
		t.Errorf("duplicates %v, replayed %d", v, repeats)
	}
	t.Logf("1000 scrapes: %v records applied, %v dropped, %d replayed", delivered, dropped, repeats)
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestTRTLLMOneRank: without attention DP, the iteration stats and /prometheus/metrics make one
// series: commit length from the stats' counters (not the gauge), per-position acceptance from
// the per-request drafted and accepted counters, the draft length from the config info.
func TestTRTLLMOneRank(t *testing.T) {
	eng := &enginemetrics.TRTLLM{MaxDraft: 3}
	srv := httptest.NewServer(eng)
	defer srv.Close()
	clk, sk := newFakeClock(), &sink{}
	src := newSource(t, clk, sk, nil, 0, Target{URL: srv.URL + "/prometheus/metrics", IterStatsURL: srv.URL + "/metrics"})
	scrape := func(n int) []sample.Sample {
		eng.Advance(n)
		if err := src.Scrape(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		clk.advance(every)
		return sk.take()
	}
	scrape(8)
	d0, a0 := eng.PerPos()
	got := scrape(40)
	d1, a1 := eng.PerPos()
	var commits, perPos int
	for _, s := range got {
		if string(s.Rank) != "" || s.Engine != sample.EngineTRTLLM {
			t.Fatalf("series %q %s, want one unnamed TensorRT-LLM rank", s.Rank, s.Engine)
		}
		if s.Has(sample.Commit) {
			commits++
			if s.Value(sample.Commit) == 9 {
				t.Error("commit length from the acceptance-length gauge")
			}
		}
		if s.NPos > 0 {
			perPos++
			if s.NPos != 3 || s.Value(sample.SpecTokens) != 3 || s.Value(sample.StepSeconds) != 0.024 {
				t.Errorf("exposition sample: %d positions, spec tokens %v, step %v", s.NPos, s.Value(sample.SpecTokens), s.Value(sample.StepSeconds))
			}
			for i := range 3 {
				near(t, "per-position acceptance", s.PerPos[i], (a1[i]-a0[i])/(d1[i]-d0[i]), 1e-12)
			}
		}
	}
	if commits != 1 || perPos != 1 {
		t.Errorf("%d samples with a commit length, %d with positions; want one each", commits, perPos)
	}
}

// TestSGLangNewest: decode_sum_seq_lens is the samples' context, spec_num_steps and
// spec_num_draft_tokens the draft settings, the interval-mean gauges are taken as they are
// (never differenced), and the drafter's engine_type="draft" series never become a series.
func TestSGLangNewest(t *testing.T) {
	ep := newEndpoint(t)
	clk, sk := newFakeClock(), &sink{}
	m := NewMetrics(prometheus.NewRegistry())
	src := newSource(t, clk, sk, m, 0, Target{URL: ep.URL})
	for i, g := range []enginemetrics.SGLang{
		{SumSeqLens: 18432, Running: 12, AccLen: 3.2, AccRate: 0.55, Steps: 3, DraftToks: 4, Verify: 1000, GenTokens: 3000, Drafter: true},
		{SumSeqLens: 20480, Running: 13, AccLen: 3.2, AccRate: 0.55, Steps: 3, DraftToks: 4, Verify: 1000, GenTokens: 3000, Drafter: true},
	} {
		ep.serve(string(g.Exposition()))
		if err := src.Scrape(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		clk.advance(every)
		got := sk.take()
		for _, s := range got {
			if s.Engine != sample.EngineSGLang || string(s.Rank) != "" || s.Kind == sample.KindEvent {
				t.Fatalf("scrape %d: a %s sample of %s rank %q: the drafter became a series", i, s.Kind, s.Engine, s.Rank)
			}
		}
		d := one(t, got, sample.KindDecode)
		if d.Value(sample.Context) != g.SumSeqLens || d.Value(sample.SpecSteps) != 3 || d.Value(sample.VerifyTokens) != 4 ||
			d.Value(sample.AcceptRate) != 0.55 || d.Value(sample.Running) != g.Running {
			t.Errorf("scrape %d: context %v spec steps %v verify %v rate %v running %v", i, d.Value(sample.Context),
				d.Value(sample.SpecSteps), d.Value(sample.VerifyTokens), d.Value(sample.AcceptRate), d.Value(sample.Running))
		}
		// the verify counters did not move: no commit length, and the mean gauge is not a rate
		if i == 1 && d.Has(sample.Commit) {
			t.Errorf("commit %v with no request finished", d.Value(sample.Commit))
		}
	}
	if v := testutil.ToFloat64(m.draft.WithLabelValues(src.targets[0].name)); v != 6 {
		t.Errorf("drafter samples left out: %v, want 6", v)
	}
}

// TestVLLMDraftsPerPos: with vllm:spec_decode_num_draft_tokens_per_pos, acceptance at each
// position is over the drafts made at that position.
func TestVLLMDraftsPerPos(t *testing.T) {
	eng := &enginemetrics.VLLM{PerPosDrafts: true}
	ep := newEndpoint(t)
	clk, sk := newFakeClock(), &sink{}
	src := newSource(t, clk, sk, nil, 0, Target{URL: ep.URL})
	up0, up1 := 10*time.Minute, 10*time.Minute+every
	for _, up := range []time.Duration{up0, up1} {
		ep.serve(string(eng.Exposition(up)))
		if err := src.Scrape(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		clk.advance(every)
	}
	s := one(t, sk.take(), sample.KindSpec)
	_, acc0 := eng.Truth(up0)
	_, acc1 := eng.Truth(up1)
	d0, d1 := eng.DraftsAt(up0), eng.DraftsAt(up1)
	if s.NPos != 5 {
		t.Fatalf("%d positions, want 5", s.NPos)
	}
	for i := range 5 {
		near(t, "acceptance over the drafts at the position", s.PerPos[i], (acc1[i]-acc0[i])/(d1[i]-d0[i]), 1e-12)
	}
}
