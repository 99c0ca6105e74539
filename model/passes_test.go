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

// passScenario is one SGLang rank at batch 1–8 for five minutes whose engine publishes its
// forward passes: the step model's truth is sim's A + B·context.
func passScenario(seed uint64) sim.Scenario {
	return sim.Scenario{Name: "passes", Seed: seed, Start: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), Duration: 5 * time.Minute,
		Format: sim.FormatRaw, Services: []sim.Service{{Engine: sim.SGLang, Ranks: []string{"TP0"}, ForwardPass: true,
			Step:       sim.StepModel{A: 0.030, B: 2e-6},
			Workload:   sim.Workload{Concurrency: 8, ArrivalMean: 2 * time.Second, PromptMin: 500, PromptMax: 12000, OutputMin: 100, OutputMax: 1200},
			Acceptance: sim.Acceptance{DraftLen: 7, Phases: []sim.Phase{{Name: "chat", Mean: 3.5, Weight: 1}}}}}}
}

// passSample is what ingest/fwdpass makes of a pass (its samples.go).
func passSample(p sim.Pass) sample.Sample {
	s := sample.Sample{Kind: sample.KindDecode, Event: sample.EventIteration, Source: sample.SourceForwardPass,
		Engine: sample.EngineSGLang, Rank: []byte(p.Series.Rank), Time: p.Time.UnixNano()}
	s.Set(sample.StepSeconds, p.StepSeconds)
	s.Set(sample.Running, float64(p.Running))
	s.Set(sample.Context, float64(p.Context))
	return s
}

// passRun feeds the scenario's decode log, and its forward passes when passes is set, in time
// order, and returns the rank's report and the number of passes.
func passRun(t *testing.T, sc sim.Scenario, passes bool) (SeriesReport, int) {
	t.Helper()
	var ps []sample.Sample
	sc.OnPass = func(p sim.Pass) { ps = append(ps, passSample(p)) }
	var buf bytes.Buffer
	if _, err := sim.Generate(sc, &buf, nil); err != nil {
		t.Fatal(err)
	}
	if !passes {
		ps = nil
	}
	set := NewSet(Options{})
	p := parse.NewParser(parse.Options{})
	st := parse.NewStream(parse.StreamOptions{Year: 2026, Location: time.UTC})
	lines := bufio.NewScanner(&buf)
	var rec parse.Record
	for lines.Scan() {
		r := p.Parse(lines.Bytes(), &rec)
		if r == sample.Ignored {
			continue
		}
		st.Resolve(0, nil, nil, &rec)
		for len(ps) > 0 && ps[0].Time <= rec.Time {
			set.Observe(&ps[0])
			ps = ps[1:]
		}
		set.Apply(r, &rec.Sample)
	}
	rep := set.Report()
	if len(rep.Series) != 1 {
		t.Fatalf("%d series, want the rank's one", len(rep.Series))
	}
	return rep.Series[0], len(ps)
}

// TestPassesStepModel: with the forward passes, five minutes of one rank at batch 1–8 give the
// step model within 3 % of the simulator's truth (each coefficient), where the decode log's
// interval averages alone give what they give beside it.
func TestPassesStepModel(t *testing.T) {
	const a, b = 0.030, 2e-6
	worst := 0.0
	for seed := uint64(1); seed <= 5; seed++ {
		sc := passScenario(seed)
		with, _ := passRun(t, sc, true)
		logs, _ := passRun(t, sc, false)
		m := with.StepModel
		if m == nil || with.Sources == nil || with.Sources.Step != "forward_pass" {
			t.Fatalf("seed %d: step model %+v from %+v, want the passes'", seed, m, with.Sources)
		}
		ea, eb := m.FixedMS/1000/a-1, m.MSPer1kToken/1e6/b-1
		worst = max(worst, math.Abs(ea), math.Abs(eb))
		if math.Abs(ea) > 0.03 || math.Abs(eb) > 0.03 {
			t.Errorf("seed %d: passes' fit %.2f ms + %.4f ms per 1k tokens, truth %.2f + %.4f", seed, m.FixedMS, m.MSPer1kToken, a*1000, b*1e6)
		}
		if with.TPS == nil || !(with.TPS.MeasuredMean > 0) || with.CommitLen == nil {
			t.Errorf("seed %d: tok/s %+v, commit %+v: the passes take the log's commit length", seed, with.TPS, with.CommitLen)
		}
		if l := logs.StepModel; l != nil {
			t.Logf("seed %d: passes %.2f ms + %.4f ms/1k (%+.1f %%, %+.1f %%), %d points; decode log %.2f ms + %.4f ms/1k (%+.1f %%, %+.1f %%), %d points",
				seed, m.FixedMS, m.MSPer1kToken, 100*ea, 100*eb, m.N, l.FixedMS, l.MSPer1kToken, 100*(l.FixedMS/1000/a-1), 100*(l.MSPer1kToken/1e6/b-1), l.N)
		} else {
			t.Logf("seed %d: passes %.2f ms + %.4f ms/1k (%+.1f %%, %+.1f %%); the decode log has no step model yet", seed, m.FixedMS, m.MSPer1kToken, 100*ea, 100*eb)
		}
	}
	t.Logf("worst coefficient error with the passes: %.1f %%", 100*worst)
}

// A vLLM rank's logs state KV cache usage in percent; once its forward passes come, its step
// model starts again in tokens, which the report says.
func TestPassesTurnVLLMToTokens(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	set := NewSet(Options{})
	key := func(s *sample.Sample, at time.Duration) *sample.Sample {
		s.Engine, s.Host, s.Unit, s.Rank, s.Time = sample.EngineVLLM, []byte("gpu08"), []byte("vllm.service"), []byte("Engine 000"), t0.Add(at).UnixNano()
		return s
	}
	for i := range 30 {
		s := key(&sample.Sample{Kind: sample.KindDecode}, time.Duration(i)*10*time.Second)
		s.Set(sample.Running, 4)
		s.Set(sample.GenTPS, 120)
		s.Set(sample.KVUsage, 0.1+0.01*float64(i))
		set.Observe(s)
	}
	if r := set.Report().Series[0]; r.ContextUnit != "kv_percent" {
		t.Fatalf("logs alone: context unit %q", r.ContextUnit)
	}
	for i := range 3000 { // 5 minutes of passes at 10 a second
		ctx := 4 * float64(1000+(i*7919)%20000)
		s := key(&sample.Sample{Kind: sample.KindDecode, Event: sample.EventIteration, Source: sample.SourceForwardPass},
			300*time.Second+time.Duration(i)*100*time.Millisecond)
		s.Set(sample.StepSeconds, 0.018+4e-7*ctx)
		s.Set(sample.Running, 4)
		s.Set(sample.Context, ctx)
		set.Observe(s)
	}
	r := set.Report().Series[0]
	if m := r.StepModel; r.ContextUnit != "tokens" || m == nil || math.Abs(m.FixedMS-18) > 0.2 || math.Abs(m.MSPer1kToken-0.4) > 0.005 {
		t.Errorf("after the passes: unit %q, model %+v; want 18 ms + 0.4 ms per 1k tokens", r.ContextUnit, m)
	}
}
