package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/demo"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
	"github.com/specwatch/specwatch/sim"
)

// incidentEpisode is one anomaly the incidents scenario is built to raise: its kind on its
// series, inside the fault's window (offsets from the loop's start, simulated time), raised
// within raiseBy of the fault's start and closed within clearBy of its end.
type incidentEpisode struct {
	host, unit, kind, severity, alert string
	start, end, raiseBy, clearBy      time.Duration
}

var incidentEpisodes = []incidentEpisode{
	{sim.IncidentsStuckHost, sim.IncidentsStuckUnit, "commit_len_stuck", "critical", "SpecDecCommitLenStuck",
		sim.IncidentsStuckStart, sim.IncidentsStuckEnd, 30 * time.Second, 30 * time.Second},
	{sim.IncidentsCollapseHost, sim.IncidentsCollapseUnit, "throughput_collapse", "warning", "SpecDecThroughputCollapse",
		sim.IncidentsCollapseStart, sim.IncidentsCollapseEnd, 60 * time.Second, 45 * time.Second},
}

// checkIncidents asserts that rep holds exactly the two series of the scenario, each with one
// episode of its intended kind per loop and nothing else. Loop k starts at origin + k·period
// in rep's time; simulated offsets are divided by speed.
func checkIncidents(t *testing.T, rep model.Report, origin time.Time, period time.Duration, speed float64, loops int) {
	t.Helper()
	at := func(loop int, off time.Duration) time.Time {
		return origin.Add(time.Duration(float64(time.Duration(loop)*period+off) / speed))
	}
	if len(rep.Series) != len(incidentEpisodes) {
		t.Errorf("%d series, want %d: %+v", len(rep.Series), len(incidentEpisodes), rep.Series)
	}
	for _, want := range incidentEpisodes {
		var got *model.SeriesReport
		for i := range rep.Series {
			if l := rep.Series[i].Labels; l.Host == want.host && l.Unit == want.unit && l.Engine == "sglang" && l.Rank == "TP0" {
				got = &rep.Series[i]
			}
		}
		if got == nil {
			t.Errorf("no series %s %s TP0", want.host, want.unit)
			continue
		}
		if len(got.Anomalies) != loops {
			t.Errorf("%s: %d episodes, want %d (one %s per loop): %+v", want.host, len(got.Anomalies), loops, want.kind, got.Anomalies)
		}
		for k, a := range got.Anomalies {
			if a.Kind != want.kind || a.Severity != want.severity {
				t.Errorf("%s episode %d: %s %s, want %s %s (%s)", want.host, k, a.Severity, a.Kind, want.severity, want.kind, a.Detail)
				continue
			}
			if k >= loops {
				continue
			}
			lo, hi := at(k, want.start), at(k, want.start+want.raiseBy)
			if a.Start.Before(lo) || a.Start.After(hi) {
				t.Errorf("%s %s of loop %d raised at %s, want in [%s, %s]", want.host, want.kind, k, a.Start.Format(time.TimeOnly), lo.Format(time.TimeOnly), hi.Format(time.TimeOnly))
			}
			lo, hi = at(k, want.end), at(k, want.end+want.clearBy)
			if a.End == nil || a.End.Before(lo) || a.End.After(hi) {
				t.Errorf("%s %s of loop %d ended at %v, want in [%s, %s]", want.host, want.kind, k, a.End, lo.Format(time.TimeOnly), hi.Format(time.TimeOnly))
			}
		}
	}
}

// TestDemoIncidentsOnce: one loop of the incidents scenario, analysed offline on the demo's
// seed, raises the stuck drafter on gpu07 and the throughput collapse on gpu08 inside their
// faults' windows, and nothing else: the healthy opening and the recovery are quiet.
func TestDemoIncidentsOnce(t *testing.T) {
	out, stderr, code := runCmd(t, "demo", "--scenario", "incidents", "--once", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep model.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out)
	}
	checkIncidents(t, rep, sim.Incidents(demo.Seed).Start, sim.IncidentsLength, 1, 1)
	if rep.Input.Malformed != 0 || rep.Input.Samples < 400 {
		t.Errorf("input %+v: want no malformed lines and a busy service's samples", rep.Input)
	}
	for _, s := range rep.Series {
		if s.StepModel == nil || s.StepModel.R2 < 0.9 {
			t.Errorf("%s: step model %+v, want a good fit (the collapse is judged against it)", s.Labels.Host, s.StepModel)
		}
	}
}

// TestDemoIncidentsOutlastFor: every episode of the scenario stays active longer than its
// shipped alert's `for:` plus the pipeline's delays, at the paces the docs promise: real time
// up to 2× at Prometheus' usual 15 s scrape and evaluation (30 s to go pending), and the 3× of
// the end-to-end test at 1 s (2 s, and 10 s of margin for a loaded machine).
func TestDemoIncidentsOutlastFor(t *testing.T) {
	forOf := shippedFor(t)
	out, _, code := runCmd(t, "demo", "--scenario", "incidents", "--once", "--format", "json")
	var rep model.Report
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("demo --once: exit %d", code)
	}
	for _, want := range incidentEpisodes {
		f, ok := forOf[want.alert]
		if !ok {
			t.Fatalf("%s is not in the shipped rules", want.alert)
		}
		for _, s := range rep.Series {
			for _, a := range s.Anomalies {
				if a.Kind != want.kind || a.End == nil {
					continue
				}
				active := a.End.Sub(a.Start)
				for _, pace := range []struct {
					speed float64
					delay time.Duration
				}{{2, 30 * time.Second}, {3, 12 * time.Second}} {
					if wall := time.Duration(float64(active) / pace.speed); wall < f+pace.delay {
						t.Errorf("%s is active %s, %s at %g×: shorter than its `for: %s` + %s", want.kind, active, wall, pace.speed, f, pace.delay)
					}
				}
			}
		}
	}
}

// shippedFor reads each alert's `for:` from the shipped rules.
func shippedFor(t *testing.T) map[string]time.Duration {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "prometheus", "specwatch-alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				For   string `yaml:"for"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]time.Duration{}
	for _, g := range doc.Groups {
		for _, r := range g.Rules {
			if d, err := time.ParseDuration(r.For); err == nil {
				out[r.Alert] = d
			}
		}
	}
	return out
}

// fakeClock is the replay's and the pipeline's clock: sleeping advances it, and the run ends
// (cancel) once it reaches end. One goroutine uses it, the feed loop's.
type fakeClock struct {
	t, end time.Time
	cancel func()
}

func (c *fakeClock) now() time.Time { return c.t }

func (c *fakeClock) sleep(d time.Duration) {
	c.t = c.t.Add(d)
	if !c.t.Before(c.end) {
		c.cancel()
	}
}

// TestDemoIncidentsLive runs the live demo's feed — the incidents scenario replayed and
// stamped with the (injected) wall clock, the daemon's model options with expiry on — for two
// loops and the next loop's healthy opening, in real time and at the end-to-end test's 3×:
// each loop raises the same two episodes at its own phases in wall-clock time, the loop's
// restart raises nothing, and no series expires.
func TestDemoIncidentsLive(t *testing.T) {
	sc, ok := demo.Find("incidents")
	if !ok {
		t.Fatal("no incidents scenario")
	}
	sum, err := sim.Generate(sc.Sim(), io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The replay paces from its first entry and starts each pass a second after the last.
	simStart := sc.Sim().Start
	first := sum.First.Sub(simStart)
	period := sum.Last.Sub(sum.First) + time.Second
	for _, speed := range []float64{1, 3} {
		t.Run(fmt.Sprintf("%gx", speed), func(t *testing.T) {
			wallStart := time.Date(2027, 1, 5, 14, 0, 0, 0, time.UTC) // not the simulation's day
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			end := wallStart.Add(time.Duration(float64(2*period+sim.IncidentsCollapseStart-first) / speed))
			clk := &fakeClock{t: wallStart, end: end, cancel: cancel}
			cfg := config.Default()
			st := pipeline.NewState(pipeline.StateOptions{Model: cfg.ModelOptions(true), Live: true, Now: clk.now})
			src := sc.Source(speed, clk.now, clk.sleep)
			defer src.Close()
			feed := pipeline.New(st, pipeline.Options{Location: time.UTC, Year: 2026, Now: clk.now})
			if err := feed.Follow(ctx, pipeline.Input{Source: src}); err != nil {
				t.Fatal(err)
			}
			rep := st.Report()
			// where the loop's offset 0 falls on the wall clock
			origin := wallStart.Add(-time.Duration(float64(first) / speed))
			checkIncidents(t, rep, origin, period, speed, 2)
			for _, s := range rep.Series {
				if s.Last.Before(end.Add(-10*time.Second)) || s.Last.After(end) {
					t.Errorf("%s: last sample %s, want just before the run's end %s (stamped with the clock)", s.Labels.Host, s.Last, end)
				}
			}
			st.Tick(end) // expiry is decided on the clock: both series logged until the end
			for _, s := range st.Snapshot(nil) {
				if s.Quiet || s.Gone {
					t.Errorf("series %+v expired", s.Labels)
				}
			}
			if !strings.Contains(st.Status().LastEntry.String(), "2027-01-05") {
				t.Errorf("last entry %s: not the wall clock's", st.Status().LastEntry)
			}
		})
	}
}

// TestDemoScenarioUsage: an unknown scenario, and a paceless replay of one stamped with the
// wall clock, are usage errors that say what to give instead.
func TestDemoScenarioUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "--scenario", "outage"}, `--scenario "outage": want tour, incidents or engines`},
		{[]string{"demo", "--scenario", "incidents", "--speed", "0", "--web.listen-address", "127.0.0.1:0"}, "needs a pace"},
	} {
		_, stderr, code := runCmd(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
