package sim

import (
	"bytes"
	"math"
	"testing"
	"time"
)

// faulty is a busy single-rank DDTree service with one episode of each fault, ten minutes apart.
func faulty(f Format) Scenario {
	m := time.Minute
	ep := func(k FaultKind, at time.Duration, size float64) Fault {
		return Fault{Kind: k, Start: at * m, Duration: 5 * m, Size: size}
	}
	return Scenario{
		Name: "faulty", Seed: 5, Duration: 110 * m, Format: f,
		Services: []Service{{
			Host: "gpu07", Unit: "sglang.service", Engine: SGLang, Ranks: []string{"TP0"},
			Step: StepModel{A: 0.03, B: 4e-6},
			Workload: Workload{Concurrency: 2, PromptMin: 1000, PromptMax: 2000, OutputMin: 500,
				OutputMax: 800},
			Acceptance:  Acceptance{DraftLen: 15, NoiseSD: 0.05, Phases: []Phase{{Name: "flat", Mean: 5}}},
			CustomStats: true, ProfileLines: true,
			Faults: []Fault{
				ep(StuckAtOne, 10, 0), ep(InconsistentDepth, 20, 0), ep(AcceptanceDrop, 30, 0.4),
				ep(StepSlowdown, 40, 0.5), ep(Collapse, 50, 0.8), ep(FormatChange, 60, 0),
				ep(Silence, 70, 0),
				{Kind: AcceptanceDrift, Start: 80 * m, Duration: 30 * m, Ramp: 20 * m, Size: 0.5},
			},
		}},
	}
}

func TestFaults(t *testing.T) {
	s := faulty(FormatRaw)
	out, truths, _ := run(t, s)
	lines := bytes.Split(out, []byte("\n"))
	start := s.Start
	if start.IsZero() {
		start = defaultStart
	}
	const slack = 10 * time.Second // a line covers the interval before it
	m := s.Services[0].Step
	for _, f := range s.Services[0].Faults {
		from, to := start.Add(f.Start), start.Add(f.Start+f.Duration)
		inside, flagged := 0, 0
		for _, tr := range truths {
			has := tr.Faults.Has(f.Kind)
			if has && (tr.Time.Before(from) || tr.Time.After(to.Add(slack))) {
				t.Fatalf("%v flagged at %v, outside [%v, %v]", f.Kind, tr.Time, from, to)
			}
			if tr.Time.After(from.Add(slack)) && tr.Time.Before(to) && !has {
				t.Fatalf("%v not flagged at %v, inside its window", f.Kind, tr.Time)
			}
			if has {
				flagged++
			}
			if !has || tr.Line != LineDecode && tr.Line != LineCustom {
				continue
			}
			inside++
			b := body(t, SGLang, lines[tr.Record-1])
			switch f.Kind {
			case StuckAtOne:
				if tr.CommitLen != 1 || !bytes.Contains(b, []byte("accept len: 1.00,")) && !bytes.Contains(b, []byte("avg_accepted_depth=0.00")) {
					t.Fatalf("stuck drafter, but %q", b)
				}
			case InconsistentDepth:
				if tr.Line == LineCustom && !bytes.HasPrefix(b, []byte("avg_commit_len=1.00, avg_accepted_depth=3.00")) {
					t.Fatalf("inconsistent depth, but %q", b)
				}
			case AcceptanceDrop:
				if tr.CommitLen > 5*0.6+0.3 || tr.CommitLen < 5*0.6-0.3 {
					t.Fatalf("commit %.2f during a 40 %% drop from 5", tr.CommitLen)
				}
			case StepSlowdown:
				if r := tr.StepSeconds / (m.A + m.B*float64(tr.Context)); r < 1.35 || r > 1.65 {
					t.Fatalf("step %.2f× the model during a 50 %% slowdown", r)
				}
			case Collapse:
				model := tr.CommitLen * float64(tr.Running) / tr.StepSeconds
				if r := tr.TPS / model; math.Abs(r-0.2) > 0.01 {
					t.Fatalf("throughput %.3f of the model during a collapse to 0.2", r)
				}
				if r := tr.StepSeconds / (m.A + m.B*float64(tr.Context)); r < 0.85 || r > 1.15 {
					t.Fatalf("GPU step %.2f× the model during a collapse: should stay normal", r)
				}
			case FormatChange:
				if match(tr.Line, b) != nil || !hasMarker(b) {
					t.Fatalf("format change, but the line still parses or lost its marker: %q", b)
				}
			case AcceptanceDrift:
				done := min(1, float64(tr.Time.Sub(from))/float64(f.Ramp))
				if want := 5 * (1 - 0.5*done); math.Abs(tr.CommitLen-want) > 0.35 {
					t.Fatalf("commit %.2f at %.0f %% of the drift, want %.2f", tr.CommitLen, 100*done, want)
				}
			}
		}
		if f.Kind == Silence {
			if flagged != 0 {
				t.Errorf("silence: %d lines written", flagged)
			}
			continue
		}
		if inside < 20 {
			t.Errorf("%v: only %d lines in the episode", f.Kind, inside)
		}
	}
}

// TestVLLMStuck checks the vLLM form of a stuck drafter: drafts made, none accepted.
func TestVLLMStuck(t *testing.T) {
	s := Demo(1)
	s.Services = s.Services[1:]
	s.Services[0].Faults = []Fault{{Kind: StuckAtOne, Start: 10 * time.Minute, Duration: 10 * time.Minute}}
	s.Duration = 30 * time.Minute
	out, truths, _ := run(t, s)
	es := split(t, s.Format, out)
	n := 0
	for _, tr := range truths {
		if tr.Line != LineSpec || !tr.Faults.Has(StuckAtOne) {
			continue
		}
		n++
		b := es[tr.Record-1].msg
		if !bytes.Contains(b, []byte("Mean acceptance length: 1.00,")) || !bytes.Contains(b, []byte("Accepted: 0 tokens")) ||
			bytes.Contains(b, []byte("Drafted: 0 tokens")) {
			t.Fatalf("stuck vLLM drafter, but %q", b)
		}
	}
	if n < 30 {
		t.Errorf("%d stuck SpecDecoding lines, want ~60", n)
	}
}
