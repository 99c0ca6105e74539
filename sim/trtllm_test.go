package sim

import (
	"io"
	"math"
	"strings"
	"testing"
	"time"
)

// TestTRTLLMTruth: a TensorRT-LLM rank's iterations tile its timeline (each line's host step
// time is the time since the rank's previous line), the batch never exceeds the concurrency,
// and each rank of a TLLM_PROFILE_LOG_RANKS=all world is its own series.
func TestTRTLLMTruth(t *testing.T) {
	sc := Scenario{Seed: 3, Duration: 40 * time.Second, Services: []Service{{Engine: TRTLLM,
		Ranks: []string{"", "1", "2", "3"}, Step: StepModel{A: 0.01, B: 3e-8},
		Workload:   Workload{Concurrency: 4, ArrivalMean: 3 * time.Second},
		Acceptance: Acceptance{DraftLen: 2}, Policy: SpecPolicy{OffFrom: 30 * time.Second}}}}
	last := map[string]time.Time{}
	lines := map[string]int{}
	gates := 0
	sum, err := Generate(sc, io.Discard, func(tr Truth) {
		r := tr.Series.Rank
		if tr.Line == LineGate {
			gates++
			return
		}
		if tr.Line != LineIteration || tr.Series.Engine != TRTLLM {
			t.Fatalf("record %d: %v line of %v", tr.Record, tr.Line, tr.Series.Engine)
		}
		prev, ok := last[r]
		if !ok {
			prev = sc.Start
			if prev.IsZero() {
				prev = defaultStart
			}
		}
		if d := tr.Time.Sub(prev).Seconds(); math.Abs(d-tr.StepSeconds) > 1e-6 {
			t.Fatalf("rank %q record %d: %v since the previous line, host step %v", r, tr.Record, d, tr.StepSeconds)
		}
		if tr.Running < 0 || tr.Running > 4 {
			t.Fatalf("rank %q record %d: %d generation requests", r, tr.Record, tr.Running)
		}
		last[r] = tr.Time
		lines[r]++
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Series) != 4 || len(lines) != 4 || gates != 4 {
		t.Fatalf("series %v, lines per rank %v, %d gates", sum.Series, lines, gates)
	}
	for r, n := range lines {
		if n < 1000 { // a 10 ms step writes about a hundred lines a second while busy
			t.Errorf("rank %q: %d iteration lines in 40 s", r, n)
		}
	}
}

// A TensorRT-LLM service names its ranks by number and cannot turn its gate back on.
func TestTRTLLMScenarioChecks(t *testing.T) {
	for _, c := range []struct {
		sv   Service
		want string
	}{
		{Service{Engine: TRTLLM, Ranks: []string{"TP0"}}, "ranks are"},
		{Service{Engine: TRTLLM, Ranks: []string{"", "01"}}, "ranks are"},
		{Service{Engine: TRTLLM, Policy: SpecPolicy{OffFrom: time.Second, OnFrom: 2 * time.Second}}, "for good"},
		{Service{Engine: TRTLLM, Style: SGLangOld}, "not a trtllm style"},
	} {
		c.sv.Step = StepModel{A: 0.01}
		_, err := Generate(Scenario{Duration: time.Second, Services: []Service{c.sv}}, io.Discard, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.sv.Ranks, err, c.want)
		}
	}
}
