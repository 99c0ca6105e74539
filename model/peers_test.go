package model

import (
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sample"
	"github.com/specwatch/specwatch/sim"
)

// ranks4 is one SGLang process with four data-parallel ranks, each serving its own requests
// (up to 4 at a time) with text-dependent acceptance: the setting of rank_skew.
func ranks4(seed uint64, d time.Duration, faults ...sim.Fault) sim.Scenario {
	sc := textual(steady(seed, d, faults...))
	sv := &sc.Services[0]
	sv.Ranks = []string{"DP0 TP0", "DP1 TP1", "DP2 TP2", "DP3 TP3"}
	sv.Workload = sim.Workload{Concurrency: 4, PromptMin: 200, PromptMax: 16000, OutputMin: 300, OutputMax: 4000}
	return sc
}

// byRank lists the anomaly kinds of each rank.
func byRank(set *Set) map[string][]string {
	out := map[string][]string{}
	for _, s := range set.wordedReport().Series {
		for _, a := range s.Anomalies {
			out[s.Labels.Rank] = append(out[s.Labels.Rank], a.Kind)
		}
	}
	return out
}

func TestRankSkew(t *testing.T) {
	for _, c := range []struct {
		name  string
		fault sim.Fault
	}{
		{"slow steps", sim.Fault{Kind: sim.StepSlowdown, Size: 0.4, Ranks: []string{"DP2 TP2"}}},
		{"low acceptance", sim.Fault{Kind: sim.AcceptanceDrop, Size: 0.4, Ranks: []string{"DP2 TP2"}}},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			set := run(t, ranks4(seed, 4*time.Hour, c.fault), Options{}, nil)
			got := byRank(set)
			if strings.Join(got["DP2 TP2"], ",") != "rank_skew" {
				t.Errorf("%s, seed %d: DP2 TP2 has %v, want rank_skew alone (it was always so: no baseline of its own moved)", c.name, seed, got["DP2 TP2"])
			}
			for _, r := range []string{"DP0 TP0", "DP1 TP1", "DP3 TP3"} {
				if len(got[r]) != 0 {
					t.Errorf("%s, seed %d: healthy rank %s has %v", c.name, seed, r, got[r])
				}
			}
			for _, s := range set.wordedReport().Series {
				if s.Labels.Rank == "DP2 TP2" && seed == 1 {
					t.Logf("%s: %s", c.name, s.Anomalies[0].Detail)
				}
			}
		}
	}
}

// Healthy ranks of one process differ by the text each serves: no skew over half a day (three
// seeds; 5 × 24 h raised nothing either, but cost a race-enabled run minutes).
func TestRankSkewHealthy(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		if got := byRank(run(t, ranks4(seed, 12*time.Hour), Options{}, nil)); len(got) != 0 {
			t.Errorf("seed %d: %v", seed, got)
		}
	}
	for _, sc := range []sim.Scenario{sim.Demo(1), sim.Mixed(1, 100000), sim.Chatty(1, 100000)} {
		for r, kinds := range byRank(run(t, raw(sc), Options{}, nil)) {
			for _, k := range kinds {
				if k == "rank_skew" {
					t.Errorf("%s: rank %s: rank_skew", sc.Name, r)
				}
			}
		}
	}
}

// An engine restarted into a slower build, or with a drafter that accepts less, is reported as
// such; a restart that changes nothing says so in the explanation.
func TestRestartRegression(t *testing.T) {
	for _, c := range []struct {
		name  string
		fault *sim.Fault
		want  bool
	}{
		{"slower build", &sim.Fault{Kind: sim.StepSlowdown, Start: 3 * time.Hour, Size: 0.3}, true},
		{"worse drafter", &sim.Fault{Kind: sim.AcceptanceDrop, Start: 3 * time.Hour, Size: 0.3}, true},
		{"same build", nil, false},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			sc := textual(steady(seed, 5*time.Hour))
			sc.Services[0].StartupLines = true
			sc.Services[0].Restarts = []time.Duration{3 * time.Hour}
			if c.fault != nil {
				sc.Services[0].Faults = []sim.Fault{*c.fault}
			}
			restartAt := sc.Start.Add(3 * time.Hour).UnixNano()
			var raisedAt int64
			set := run(t, sc, Options{}, func(se *Series, s *sample.Sample) {
				if raisedAt == 0 && s.Time >= restartAt && se.Active(RestartRegression) {
					raisedAt = s.Time
				}
			})
			s := set.wordedReport().Series[0]
			raised, took := raisedAt != 0, time.Duration(raisedAt-restartAt)
			if raised != c.want {
				t.Errorf("%s, seed %d: restart_regression raised %v, want %v\n%s", c.name, seed, raised, c.want, s.Explanation)
				continue
			}
			if raised && took > 40*time.Minute {
				t.Errorf("%s, seed %d: raised %s after the restart, want ≤ 40 min", c.name, seed, took)
			}
			if !raised && !strings.Contains(s.Explanation, "The engine restarted at 2026-11-20 12:00") {
				t.Errorf("%s, seed %d: the explanation does not mention the restart:\n%s", c.name, seed, s.Explanation)
			}
			if seed == 1 {
				t.Logf("%s: raised %v after %s: %s", c.name, raised, took.Round(time.Second), s.Explanation)
			}
		}
	}
}

// Ranks of the same unit in different containers are different engine processes: not peers.
func TestRankSkewPeersShareContainer(t *testing.T) {
	set := NewSet(Options{})
	mk := func(rank, container string) *Series {
		s := parseLine(t, "[2026-11-20 09:00:00 "+rank+"] Decode batch, #running-req: 1, #token: 100, token usage: 0.00, accept len: 3.00, gen throughput (token/s): 60.00, #queue-req: 0")
		s.Host, s.Unit, s.Container = []byte("h"), []byte("u"), []byte(container)
		return set.Observe(&s)
	}
	a, b, c := mk("DP0 TP0", "c1"), mk("DP1 TP1", "c1"), mk("DP0 TP0", "c2")
	if a.det.skew.group != b.det.skew.group || a.det.skew.group == c.det.skew.group || len(a.det.skew.group.members) != 2 {
		t.Errorf("groups: a %p b %p c %p, %d members", a.det.skew.group, b.det.skew.group, c.det.skew.group, len(a.det.skew.group.members))
	}
}

// parseLine parses one engine line that must match.
func parseLine(t *testing.T, line string) sample.Sample {
	t.Helper()
	var s parse.Record
	if r := parse.NewParser(parse.Options{}).Parse([]byte(line), &s); r != sample.Matched {
		t.Fatalf("%q: %v %s", line, r, s.Why)
	}
	return s.Sample
}
