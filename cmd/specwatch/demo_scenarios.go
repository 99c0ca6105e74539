package main

import (
	"fmt"
	"io"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/pipeline"
	"github.com/specwatch/specwatch/sim"
)

// demoScenario is one recording `specwatch demo --scenario` can replay, and how: the three-hour
// tour shows every figure in a few minutes, the incidents loop runs slowly enough for a real
// Prometheus and Alertmanager to see alerts fire and resolve.
type demoScenario struct {
	name string
	// scenario is the simulator's input, on demoSeed (export gives it the replay's shape).
	scenario func() sim.Scenario
	// speed is --speed's default.
	speed float64
	// wallClock stamps every replayed line with the wall clock as it is emitted, so that the
	// series age, expire and lag like a live service's and alert rules judge them in real
	// time. Otherwise the lines keep their simulated times, and expiry is off: against the
	// clock every series would look silent for days and leave /metrics.
	wallClock bool
	// scrape also serves the simulated vLLM engine's /metrics and scrapes it (demo_metrics.go).
	scrape bool
	// banner is the first line printed: what is replayed, at pace ("at 60x").
	banner func(pace string) string
}

// demoScenarios are --scenario's values; the first is the default.
var demoScenarios = []demoScenario{
	{
		name: "tour", scenario: func() sim.Scenario { return sim.Demo(demoSeed) }, speed: 60, scrape: true,
		banner: func(pace string) string {
			return fmt.Sprintf("specwatch demo: replaying 3 simulated hours (a 2-rank SGLang DDTree service with a stuck drafter, a vLLM EAGLE service with a long-context stretch) %s, looping,\n"+
				"  and scraping a simulated vLLM MTP engine's /metrics live (%s, %s) every 2 s.", pace, demoMetricsHost, demoMetricsUnit)
		},
	},
	{
		name: "incidents", scenario: func() sim.Scenario { return sim.Incidents(demoSeed) }, speed: 1, wallClock: true,
		banner: func(pace string) string {
			at := durationWords
			return fmt.Sprintf("specwatch demo: replaying a %.0f-minute loop of two SGLang services %s, stamped with the wall clock, looping: healthy, then\n"+
				"  from %s to %s %s %s delivers %.0f %% of its throughput (throughput_collapse: SpecDecThroughputCollapse, warning),\n"+
				"  from %s to %s %s %s's drafter is stuck at commit length 1.00 (commit_len_stuck: SpecDecCommitLenStuck, critical),\n"+
				"  then healthy again until the loop starts over (above --speed 2 the warning's episode can end before its `for: 2m`).",
				sim.IncidentsLength.Minutes(), pace,
				at(sim.IncidentsCollapseStart), at(sim.IncidentsCollapseEnd), sim.IncidentsCollapseHost, sim.IncidentsCollapseUnit, 100*sim.IncidentsCollapseShare,
				at(sim.IncidentsStuckStart), at(sim.IncidentsStuckEnd), sim.IncidentsStuckHost, sim.IncidentsStuckUnit)
		},
	},
}

// durationWords writes 90s as "1m30s" and 12m as "12m", the way the docs say them.
func durationWords(d time.Duration) string {
	s := d.String()
	for _, cut := range []string{"m0s", "h0m"} {
		if len(s) > len(cut) && s[len(s)-len(cut):] == cut {
			s = s[:len(s)-len(cut)+1]
		}
	}
	return s
}

func demoScenarioNames() []string {
	names := make([]string, len(demoScenarios))
	for i, s := range demoScenarios {
		names[i] = s.name
	}
	return names
}

func findDemoScenario(name string) (demoScenario, error) {
	for _, s := range demoScenarios {
		if s.name == name {
			return s, nil
		}
	}
	return demoScenario{}, fmt.Errorf("--scenario %q: want one of %v: %w", name, demoScenarioNames(), errUsage)
}

// export streams one pass of the scenario as `journalctl -o export` would, so that the
// replay carries host, unit, cursor and time like a real journal.
func (s demoScenario) export() io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		sc := s.scenario()
		sc.Format = sim.FormatExport
		_, err := sim.Generate(sc, pw, nil)
		pw.CloseWithError(err)
	}()
	return pr
}

// source is the demo's journal: the scenario replayed at speed, looping, its entries
// restamped with now as they are emitted when the scenario runs on the wall clock.
func (s demoScenario) source(speed float64, now func() time.Time, sleep func(time.Duration)) (pipeline.Journal, io.Closer) {
	r := pipeline.NewReplay(pipeline.ReplayOptions{Open: s.export, Speed: speed, Now: now, Sleep: sleep})
	if !s.wallClock {
		return r, r
	}
	return wallClock{src: r, now: now}, r
}

// wallClock stamps each entry of src with the time it is emitted: the replay paces entries
// as the recording spaced them (scaled by the speed), so the stamps are the recording's
// rhythm in real time, and a daemon that falls behind stamps late, as journald would.
type wallClock struct {
	src pipeline.Journal
	now func() time.Time
}

// Next is src's Next with the entry's time replaced by now.
func (w wallClock) Next(e *ingest.Entry, wait time.Duration) (bool, error) {
	ok, err := w.src.Next(e, wait)
	if ok {
		e.Time = w.now().UnixMicro()
	}
	return ok, err
}
