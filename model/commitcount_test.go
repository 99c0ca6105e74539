package model

import (
	"bufio"
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sample"
	"github.com/specwatch/specwatch/sim"
)

// TestCommitCountsMatchSimulatorTruth: over a range of the Mixed corpus (a second half of its
// lines), the increase of a series' committed tokens over its verify steps is the mean commit
// length the simulator's truth gives over the same lines: exactly (to the printing) for a
// llama.cpp server's requests, whose steps the engine states; for SGLang's decode lines
// weighted by their interval × running requests, the documented proxy. The generic key=value
// build states no steps and has no counts.
func TestCommitCountsMatchSimulatorTruth(t *testing.T) {
	sc := sim.Mixed(7, 40000)
	var buf bytes.Buffer
	type sums struct{ tok, steps float64 }
	truth := map[string]*sums{} // by host, over the second half of the lines
	const half = 20000
	interval := 40.0 // sim's default --decode-log-interval
	if _, err := sim.Generate(sc, &buf, func(tr sim.Truth) {
		if tr.Record <= half {
			return
		}
		var tok, steps float64
		switch {
		case tr.Series.Engine == sim.LlamaCpp && tr.Line == sim.LineSlot && tr.Steps > 0: // its release line
			steps = float64(tr.Steps)
		case tr.Series.Engine == sim.SGLang && tr.Line == sim.LineDecode && tr.Running > 0 && tr.CommitLen > 0:
			steps = interval * float64(tr.Running)
		default:
			return
		}
		tok = tr.CommitLen * steps
		s := truth[tr.Series.Host]
		if s == nil {
			s = &sums{}
			truth[tr.Series.Host] = s
		}
		s.tok, s.steps = s.tok+tok, s.steps+steps
	}); err != nil {
		t.Fatal(err)
	}
	set := NewSet(Options{})
	p := parse.NewParser(parse.Options{})
	st := parse.NewStream(parse.StreamOptions{Year: 2026, Location: time.UTC})
	lines := bufio.NewScanner(&buf)
	lines.Buffer(make([]byte, 0, 1<<16), 1<<21)
	counts := func() map[string]sums { // by host (one service each), summed over its ranks
		out := map[string]sums{}
		for _, s := range set.Snapshot(nil) {
			if !s.HasCommitCounts {
				continue
			}
			x := out[s.Labels.Host]
			x.tok, x.steps = x.tok+s.CommittedTokens, x.steps+s.VerifySteps
			out[s.Labels.Host] = x
		}
		return out
	}
	var mid map[string]sums
	var r, joined parse.Record
	for n := 1; lines.Scan(); n++ {
		res := p.Parse(lines.Bytes(), &r)
		if res != sample.Ignored {
			st.Resolve(0, nil, nil, &r)
		}
		set.Apply(res, &r.Sample)
		for st.Take(&joined) { // llama.cpp's requests, joined from their lines
			set.Observe(&joined.Sample)
		}
		if n == half {
			mid = counts()
		}
	}
	end := counts()
	if _, ok := end["gpu03"]; ok {
		t.Errorf("the generic key=value build states no steps, yet has commit counts: %+v", end["gpu03"])
	}
	// gpu04 is the llama.cpp server, gpu01 the SGLang service
	for unit, tol := range map[string]float64{"gpu04": 1e-3, "gpu01": 0.01} {
		tr := truth[unit]
		if tr == nil || tr.steps == 0 {
			t.Fatalf("%s: no truth", unit)
		}
		a, b := mid[unit], end[unit]
		if b.steps <= a.steps {
			t.Fatalf("%s: verify steps %v then %v, want an increase", unit, a.steps, b.steps)
		}
		got, want := (b.tok-a.tok)/(b.steps-a.steps), tr.tok/tr.steps
		t.Logf("%s: counters' mean commit length %.4f over %.0f steps, truth %.4f over %.0f", unit, got, b.steps-a.steps, want, tr.steps)
		if unit == "gpu04" && b.steps-a.steps != tr.steps {
			t.Errorf("%s: %v verify steps counted, the requests had %v", unit, b.steps-a.steps, tr.steps)
		}
		if math.Abs(got-want) > tol*want {
			t.Errorf("%s: counters' mean commit length %.4f, the simulator's %.4f", unit, got, want)
		}
	}
}

// TestCommitCountsVLLMZeroAccepted: an interval of vLLM's counters that accepted nothing adds
// its drafts as steps and as tokens (commit length 1), from the drafted tokens over the draft
// length, so that a stuck drafter pulls the mean down as the engine's counters do.
func TestCommitCountsVLLMZeroAccepted(t *testing.T) {
	set := NewSet(Options{})
	spec := func(sec int, acc, drafts float64) {
		s := sample.Sample{Kind: sample.KindSpec, Engine: sample.EngineVLLM, Source: sample.SourceMetrics,
			Time: time.Date(2026, 12, 1, 12, 0, sec, 0, time.UTC).UnixNano(),
			Host: []byte("gpu05"), Unit: []byte("vllm.service"), Rank: []byte("Engine 000")}
		s.Set(sample.Commit, 1+acc/drafts)
		s.Set(sample.Accepted, acc)
		s.Set(sample.Drafted, 3*drafts)
		s.NPos = 3
		set.Apply(sample.Matched, &s)
	}
	spec(5, 900, 500)
	spec(10, 0, 700)
	snap := set.Snapshot(nil)
	if len(snap) != 1 || !snap[0].HasCommitCounts {
		t.Fatalf("no commit counts: %+v", snap)
	}
	if got, want := snap[0].VerifySteps, 1200.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("verify steps %v, want %v", got, want)
	}
	if got, want := snap[0].CommittedTokens, 2100.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("committed tokens %v, want %v", got, want)
	}
	set.ForgetCounts()
	if s := set.Snapshot(nil)[0]; s.VerifySteps != 0 || s.CommittedTokens != 0 || !s.HasCommitCounts {
		t.Errorf("after ForgetCounts: %v tokens, %v steps, exported %v; want 0, 0, still exported", s.CommittedTokens, s.VerifySteps, s.HasCommitCounts)
	}
}
