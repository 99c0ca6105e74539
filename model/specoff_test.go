package model

import (
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sample"
	"github.com/specwatch/specwatch/sim"
)

// offPolicy is one series' report after a simulated policy run, with its anomalies by kind.
func offPolicy(t *testing.T, sc sim.Scenario) (SeriesReport, map[string][]AnomalyJSON) {
	t.Helper()
	rep := run(t, sc, Options{}, nil).wordedReport()
	if len(rep.Series) != 1 {
		t.Fatalf("%d series", len(rep.Series))
	}
	s := rep.Series[0]
	kinds := map[string][]AnomalyJSON{}
	for _, a := range s.Anomalies {
		kinds[a.Kind] = append(kinds[a.Kind], a)
	}
	return s, kinds
}

func eventsOf(s SeriesReport, kind string) (n int) {
	for _, e := range s.Events {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// vLLM with num_speculative_tokens_per_batch_size giving K = 0 above a batch of 8: intervals
// at 9 to 16 requests print no SpecDecoding line. Those are steps without drafts, switched
// with the batch size: events, not an anomaly, and kept out of the commit length.
func TestVLLMNoDraftsAboveBatchEight(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		sc := sim.Scenario{Name: "vllm-k0", Seed: seed, Start: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), Duration: 4 * time.Hour,
			Format: sim.FormatRaw, Noise: 0.1,
			Services: []sim.Service{{Host: "gpu08", Unit: "vllm.service", Engine: sim.VLLM, Ranks: []string{"Engine 000"},
				Step: sim.StepModel{A: 0.018, B: 0.4e-6},
				Workload: sim.Workload{Concurrency: 16, ArrivalMean: 1500 * time.Millisecond, OutputMin: 200, OutputMax: 2000,
					Shifts: []sim.Shift{{At: time.Hour, ArrivalMean: 15 * time.Second}, {At: 2 * time.Hour, ArrivalMean: 1500 * time.Millisecond},
						{At: 3 * time.Hour, ArrivalMean: 15 * time.Second}}},
				Acceptance: sim.Acceptance{DraftLen: 3, Phases: []sim.Phase{{Name: "chat", Mean: 2.6, Weight: 1}}},
				Policy:     sim.SpecPolicy{OffAbove: 8}}},
		}
		s, kinds := offPolicy(t, sc)
		if len(kinds) != 0 {
			t.Errorf("seed %d: %v: a batch-size policy is no anomaly", seed, kinds)
		}
		if eventsOf(s, "speculation") < 2 || s.NotSpeculating < 50 {
			t.Errorf("seed %d: %d speculation events, %d samples without drafts: want the switches and the count", seed, eventsOf(s, "speculation"), s.NotSpeculating)
		}
		if s.CommitLen == nil || s.CommitLen.P10 < 1.5 {
			t.Errorf("seed %d: commit length %+v: steps without drafts must stay out", seed, s.CommitLen)
		}
	}
}

// SGLang's --speculative-adaptive setting its steps to 0 for half an hour at an unchanged
// batch: its decode lines say accept len 1.00 after "steps 7 -> 0". Not a stuck drafter
// (critical), but speculation_disabled (warning) after model.SpecOffAfter, with the cause,
// cleared when it drafts again.
func TestSGLangAdaptiveStepsOff(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		sc := steady(seed, 3*time.Hour)
		sc.Services[0].Policy = sim.SpecPolicy{OffFrom: 90 * time.Minute, OnFrom: 2 * time.Hour}
		s, kinds := offPolicy(t, sc)
		for k := range kinds {
			if k != "speculation_disabled" {
				t.Errorf("seed %d: %s raised: %s", seed, k, kinds[k][0].Detail)
			}
		}
		d := kinds["speculation_disabled"]
		if len(d) != 1 {
			t.Fatalf("seed %d: speculation_disabled %+v, want one episode", seed, d)
		}
		off := sc.Start.Add(90 * time.Minute)
		if at := d[0].Start.Sub(off); at < DefaultSpecOffAfter || at > DefaultSpecOffAfter+time.Minute {
			t.Errorf("seed %d: raised %v after the switch, want %v", seed, at, DefaultSpecOffAfter)
		}
		if d[0].End == nil || d[0].End.Sub(sc.Start.Add(2*time.Hour)) > time.Minute {
			t.Errorf("seed %d: ended %v, want when it drafts again", seed, d[0].End)
		}
		if d[0].Severity != "warning" || !strings.Contains(d[0].Detail, "adaptive speculation set its steps to 0") {
			t.Errorf("seed %d: %+v: want a warning with the engine's cause", seed, d[0])
		}
		if s.CommitLen == nil || s.CommitLen.P10 < 2 {
			t.Errorf("seed %d: commit length %+v: steps without drafts must stay out", seed, s.CommitLen)
		}
	}
}

// The seeds' case stays critical: commit length 1.00 while the build reports an accepted
// depth of 3.00, with no word from the engine that it stopped drafting.
func TestStuckWithDepthStaysCritical(t *testing.T) {
	sc := steady(1, 2*time.Hour, sim.Fault{Kind: sim.InconsistentDepth, Start: time.Hour, Duration: 20 * time.Minute})
	sc.Services[0].CustomStats = true
	_, kinds := offPolicy(t, sc)
	if len(kinds["commit_len_stuck"]) != 1 || kinds["commit_len_stuck"][0].Severity != "critical" {
		t.Errorf("commit_len_stuck %+v, want one critical episode", kinds["commit_len_stuck"])
	}
	if len(kinds["speculation_disabled"]) != 0 {
		t.Errorf("speculation_disabled for a broken drafter: %+v", kinds["speculation_disabled"])
	}
}

// A line saying spec_steps 0 is steps without drafts whatever its commit length says.
func TestSpecStepsZeroIsNotStuck(t *testing.T) {
	set := NewSet(Options{})
	for i := range 20 {
		var s sample.Sample
		s.Kind, s.Engine, s.Source = sample.KindDecode, sample.EngineSGLang, sample.SourceMetrics
		s.Host, s.Unit, s.Time = []byte("gpu01"), []byte("sglang.service"), time.Date(2026, 11, 20, 9, 0, 10*i, 0, time.UTC).UnixNano()
		s.Set(sample.Running, 4)
		s.Set(sample.GenTPS, 200)
		s.Set(sample.Commit, 1)
		s.Set(sample.SpecSteps, 0)
		set.Apply(sample.Matched, &s)
	}
	if got := anomalies(set); len(got) != 0 {
		t.Errorf("anomalies %v for an engine that says it drafts nothing", got)
	}
}
