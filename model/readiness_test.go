package model

import (
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sample"
	"github.com/specwatch/specwatch/sim"
)

// early is one engine at its default log interval (vLLM every 10 s, SGLang every 40 decode
// steps) with steady acceptance: vLLM EAGLE at 2.8, SGLang at 3.2.
func early(engine sim.Engine, seed uint64, d time.Duration, faults ...sim.Fault) sim.Scenario {
	sv := sim.Service{Host: "gpu01", Engine: engine, Faults: faults}
	switch engine {
	case sim.VLLM:
		sv.Ranks = []string{"Engine 000"}
		sv.Step = sim.StepModel{A: 0.018, B: 4e-7}
		sv.Workload = sim.Workload{Concurrency: 8, PromptMin: 200, PromptMax: 8000, OutputMin: 200, OutputMax: 2000}
		sv.Acceptance = sim.Acceptance{DraftLen: 3, NoiseSD: 0.3, Phases: []sim.Phase{{Name: "chat", Mean: 2.8, Weight: 1}}}
	default:
		sv.Ranks = []string{"TP0"}
		sv.Step = sim.StepModel{A: 0.040, B: 2e-6}
		sv.Workload = sim.Workload{Concurrency: 4, PromptMin: 200, PromptMax: 4000, OutputMin: 500, OutputMax: 3000}
		sv.Acceptance = sim.Acceptance{DraftLen: 7, NoiseSD: 0.6, Phases: []sim.Phase{{Name: "chat", Mean: 3.2, Weight: 1}}}
	}
	return sim.Scenario{Name: "early", Seed: seed, Start: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), Duration: d,
		Format: sim.FormatRaw, Noise: 0.1, Services: []sim.Service{sv}}
}

// An early fall is raised: commit length 2.8 → 1.8 (vLLM) or 3.2 → 2.2 (SGLang), for good or
// for 10 minutes, at minutes 10, 15, 30, 60 and 100 of 2- and 4-hour logs (and 200 of the
// 4-hour ones), is raised as
// acceptance_drop within 15 minutes of onset, and the verdict is not "expected". Before
// early arming, the minute-60 and -100 falls in vLLM logs were called expected.
func TestEarlyDropRaised(t *testing.T) {
	worst := map[sim.Engine]time.Duration{}
	for _, e := range []sim.Engine{sim.VLLM, sim.SGLang} {
		size := 1 - 1.8/2.8
		if e == sim.SGLang {
			size = 1 - 2.2/3.2
		}
		for _, d := range []time.Duration{2 * time.Hour, 4 * time.Hour} {
			for _, at := range []time.Duration{10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour, 100 * time.Minute, 200 * time.Minute} {
				if at >= d {
					continue
				}
				for _, lasts := range []time.Duration{0, 10 * time.Minute} {
					for seed := uint64(1); seed <= 2; seed++ {
						sc := early(e, seed, d, sim.Fault{Kind: sim.AcceptanceDrop, Start: at, Duration: lasts, Size: size})
						took, ok := firstRaise(t, sc, sc.Start.Add(at), AcceptanceDrop)
						switch {
						case !ok:
							t.Errorf("%s %s log, fall at %s lasting %s, seed %d: never raised", e, d, at, lasts, seed)
						case took > 15*time.Minute:
							t.Errorf("%s %s log, fall at %s lasting %s, seed %d: raised after %s, want within 15 minutes",
								e, d, at, lasts, seed, took)
						}
						worst[e] = max(worst[e], took)
						if lasts == 0 && seed == 1 {
							s := run(t, sc, Options{}, nil).wordedReport().Series[0]
							if s.Verdict == "expected" || s.Verdict == "healthy" {
								t.Errorf("%s %s log, fall at %s: verdict %s: %s", e, d, at, s.Verdict, s.Explanation)
							}
						}
					}
				}
			}
		}
	}
	t.Logf("worst time from onset to acceptance_drop: vLLM %s, SGLang %s (target 15 minutes)", worst[sim.VLLM], worst[sim.SGLang])
}

// Readiness is reported: warming up with what it still needs at first, armed within 10
// minutes of the engine's first line at its default log interval, in the report and the
// snapshot the exporter reads.
func TestReadinessArmsWithinTenMinutes(t *testing.T) {
	for _, e := range []sim.Engine{sim.VLLM, sim.SGLang} {
		sc := early(e, 1, 30*time.Minute)
		var first int64
		var needs []int
		set := run(t, sc, Options{}, func(se *Series, s *sample.Sample) {
			if first == 0 {
				first = s.Time
			}
			var r [NumReadiness]Ready
			se.readiness(&r)
			if r[0].Detector != AcceptanceDrop {
				t.Fatalf("readiness[0] is %s", r[0].Detector)
			}
			if !r[0].Armed {
				needs = append(needs, r[0].Need)
			}
		})
		rep := set.wordedReport().Series[0]
		var drop *Readiness
		for i := range rep.Readiness {
			if rep.Readiness[i].Detector == "acceptance_drop" {
				drop = &rep.Readiness[i]
			}
		}
		if drop == nil || !drop.Armed || drop.ArmedAt == nil {
			t.Fatalf("%s: acceptance_drop readiness %+v in %+v", e, drop, rep.Readiness)
		}
		took := drop.ArmedAt.Sub(time.Unix(0, first))
		t.Logf("%s: acceptance_drop armed %s after the first sample; needed %d samples at first", e, took.Round(time.Second), needs[0])
		if took > 10*time.Minute {
			t.Errorf("%s: acceptance_drop armed %s after the first sample, want within 10 minutes", e, took)
		}
		if len(needs) == 0 || needs[0] <= 0 || needs[len(needs)-1] > needs[0] {
			t.Errorf("%s: samples needed while warming up %v: want positive and not growing", e, needs)
		}
		var snaps []SeriesSnapshot
		snaps = set.Snapshot(snaps)
		if r := snaps[0].Ready[0]; !r.Armed || r.Need != 0 {
			t.Errorf("%s: snapshot readiness %+v, want armed", e, r)
		}
	}
}

// A fall the detector could not see is unjudged, not expected: commit length falls at minute 3,
// before acceptance_drop armed, in a 20-minute log.
func TestUnarmedFallIsUnjudged(t *testing.T) {
	sc := early(sim.VLLM, 1, 20*time.Minute, sim.Fault{Kind: sim.AcceptanceDrop, Start: 3 * time.Minute, Size: 1 - 1.8/2.8})
	s := run(t, sc, Options{}, nil).wordedReport().Series[0]
	if s.Verdict != "unjudged" || !strings.Contains(s.Explanation, "acceptance_drop armed at") {
		t.Errorf("verdict %s: %s", s.Verdict, s.Explanation)
	}
	t.Log(s.Explanation)
}

// Windows closed after a minute are small at night (a few samples): on a healthy day with steady
// acceptance and HealthyDay's sparse nights, acceptance_drop stays quiet, for SGLang and vLLM.
func TestSparseNightsRaiseNoDrop(t *testing.T) {
	for _, e := range []sim.Engine{sim.SGLang, sim.VLLM} {
		for seed := uint64(1); seed <= 5; seed++ {
			sc := sim.HealthyDay(seed)
			sv := &sc.Services[0]
			sv.Acceptance.Phases, sv.Acceptance.NoiseSD = []sim.Phase{{Name: "chat", Mean: 4.0, Weight: 1}}, 0.6
			if e == sim.VLLM {
				sv.Engine, sv.Ranks, sv.Unit = sim.VLLM, []string{"Engine 000"}, "vllm.service"
				sv.Acceptance = sim.Acceptance{DraftLen: 3, NoiseSD: 0.3, Phases: []sim.Phase{{Name: "chat", Mean: 2.8, Weight: 1}}}
			}
			if n := anomalies(run(t, sc, Options{}, nil))["acceptance_drop"]; n != 0 {
				t.Errorf("%s seed %d: acceptance_drop %d times on a healthy day", e, seed, n)
			}
		}
	}
}
