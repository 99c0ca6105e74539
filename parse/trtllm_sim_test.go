package parse

import (
	"bufio"
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sample"
	"github.com/specwatch/specwatch/sim"
)

// trtScenario is a TensorRT-LLM service logging every iteration on two ranks
// (TLLM_PROFILE_LOG_RANKS=0,1), speculating with 3 drafts until its SpeculationGate turns
// speculation off, in the given line style.
func trtScenario(style sim.Style, format sim.Format) sim.Scenario {
	return sim.Scenario{Seed: 7, Duration: 90 * time.Second, Format: format, Noise: 0.2,
		Services: []sim.Service{{Engine: sim.TRTLLM, Style: style, Ranks: []string{"", "1"},
			Step:       sim.StepModel{A: 0.012, B: 2e-8},
			Workload:   sim.Workload{Concurrency: 6, ArrivalMean: 2 * time.Second, OutputMin: 100, OutputMax: 600},
			Acceptance: sim.Acceptance{DraftLen: 3},
			Policy:     sim.SpecPolicy{OffFrom: 60 * time.Second}}}}
}

// TestTRTLLMSimRoundTrip: what the simulator prints as TensorRT-LLM, the parser reads back as
// the simulator's truth: every iteration line a sample of its rank with the truth's batch and
// host step time, the gate an event, nothing malformed.
func TestTRTLLMSimRoundTrip(t *testing.T) {
	for _, c := range []struct {
		style  sim.Style
		format sim.Format
	}{{sim.TRTLLMCurrent, sim.FormatShortISO}, {sim.TRTLLMHost, sim.FormatCat}, {sim.TRTLLMElapsed, sim.FormatDocker}} {
		t.Run(c.style.String(), func(t *testing.T) {
			var out bytes.Buffer
			truths := map[int]sim.Truth{}
			if _, err := sim.Generate(trtScenario(c.style, c.format), &out, func(tr sim.Truth) { truths[tr.Record] = tr }); err != nil {
				t.Fatal(err)
			}
			p := NewParser(Options{})
			sc := bufio.NewScanner(&out)
			var n, iters, idle, prefill, gates, drafting, off int
			for sc.Scan() {
				n++
				var s Record
				r := p.Parse(sc.Bytes(), &s)
				tr, engine := truths[n]
				switch {
				case !engine && r != sample.Ignored:
					t.Fatalf("line %d, noise, is %v: %s", n, r, sc.Bytes())
				case !engine:
					continue
				case r != sample.Matched || s.Engine != sample.EngineTRTLLM || string(s.Rank) != tr.Series.Rank:
					t.Fatalf("line %d: %v (%s) engine %v rank %q, want rank %q: %s", n, r, s.Why, s.Engine, s.Rank, tr.Series.Rank, sc.Bytes())
				case tr.Line == sim.LineGate:
					gates++
					if s.Kind != sample.KindEvent || s.Value(sample.SpecSteps) != 0 {
						t.Fatalf("line %d: gate read as %v", n, s.Kind)
					}
					continue
				}
				iters++
				running, _ := s.Get(sample.Running)
				step, _ := s.Get(sample.StepSeconds)
				if running != float64(tr.Running) || math.Abs(step-tr.StepSeconds) > 1e-9*tr.StepSeconds {
					t.Fatalf("line %d: running %v step %v, truth %d %v: %s", n, running, step, tr.Running, tr.StepSeconds, sc.Bytes())
				}
				switch {
				case s.Kind == sample.KindPrefill:
					prefill++
				case running == 0:
					idle++
				case s.Value(sample.SpecSteps) == 3:
					drafting++
				case s.Value(sample.SpecSteps) == 0:
					off++
				default:
					t.Fatalf("line %d: spec steps %v", n, s.Value(sample.SpecSteps))
				}
				if kv, ok := s.Get(sample.KVUsage); c.style == sim.TRTLLMCurrent && (!ok || math.Abs(kv-float64(tr.Context)/500000) > 0.0005+1e-12) {
					t.Fatalf("line %d: kv_cache_util %v, truth context %d", n, kv, tr.Context)
				}
			}
			if iters != len(truths)-gates || gates != 2 || prefill == 0 || idle == 0 || drafting == 0 || off == 0 {
				t.Fatalf("%d iteration lines of %d, %d gates, %d prefill, %d idle, %d drafting, %d off", iters, len(truths), gates, prefill, idle, drafting, off)
			}
			t.Logf("%d lines: %d iterations (%d prefill, %d idle, %d drafting, %d without drafts), %d gates", n, iters, prefill, idle, drafting, off, gates)
		})
	}
}
