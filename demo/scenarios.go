// Package demo is the recordings `specwatch demo` replays, made by the simulator built into the
// binary (so no data file can go stale), and the simulated engine whose /metrics it scrapes.
package demo

import (
	"fmt"
	"io"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/pipeline"
	"github.com/specwatch/specwatch/sim"
)

// Seed fixes the demo data: every newcomer sees the same recording.
const Seed = 1

// Scenario is one recording `specwatch demo --scenario` can replay, and how: the three-hour
// tour shows every figure in a few minutes, the incidents loop runs slowly enough for a real
// Prometheus and Alertmanager to see alerts fire and resolve.
type Scenario struct {
	Name string
	// Sim is the simulator's input, on Seed (Export gives it the replay's shape).
	Sim func() sim.Scenario
	// Speed is --speed's default.
	Speed float64
	// WallClock stamps every replayed line with the wall clock as it is emitted, so that the
	// series age, expire and lag like a live service's and alert rules judge them in real
	// time. Otherwise the lines keep their simulated times, and expiry is off: against the
	// clock every series would look silent for days and leave /metrics.
	WallClock bool
	// Scrape also serves the simulated vLLM engine's /metrics and scrapes it (metrics.go).
	Scrape bool
	// Passes publishes the forward passes of the services with ForwardPass on a loopback
	// endpoint the daemon subscribes to; TRTLLM serves a simulated trtllm-serve's two metrics
	// endpoints and scrapes them (engines.go). Both need WallClock: their samples are stamped
	// on arrival.
	Passes, TRTLLM bool
	// Banner is the first line printed: what is replayed, at pace ("at 60x").
	Banner func(pace string) string
}

// Scenarios are --scenario's values; the first is the default.
var Scenarios = []Scenario{
	{
		Name: "tour", Sim: func() sim.Scenario { return sim.Demo(Seed) }, Speed: 60, Scrape: true,
		Banner: func(pace string) string {
			return fmt.Sprintf("specwatch demo: replaying 3 simulated hours (a 2-rank SGLang DDTree service with a stuck drafter, a vLLM EAGLE service with a long-context stretch) %s, looping,\n"+
				"  and scraping a simulated vLLM MTP engine's /metrics live (%s, %s) every 2 s.", pace, MetricsHost, MetricsUnit)
		},
	},
	{
		Name: "incidents", Sim: func() sim.Scenario { return sim.Incidents(Seed) }, Speed: 1, WallClock: true,
		Banner: func(pace string) string {
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
	{
		Name: "engines", Sim: func() sim.Scenario { return Engines(Seed) }, Speed: 1, WallClock: true, Passes: true, TRTLLM: true,
		Banner: func(pace string) string {
			return fmt.Sprintf("specwatch demo: replaying %.0f simulated minutes %s, stamped with the wall clock, looping: an SGLang EAGLE rank (%s, %s)\n"+
				"  whose forward passes are published on a loopback endpoint and fitted one by one, a 2-rank TensorRT-LLM service's iteration log\n"+
				"  (%s, %s), and a TensorRT-LLM engine's /prometheus/metrics and drained /metrics scraped live (%s, %s) every 2 s.",
				enginesLen.Minutes(), pace, PassesHost, PassesUnit, TRTLogHost, TRTLogUnit, TRTScrapHost, TRTScrapUnit)
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

// Names are the scenarios' names, in order.
func Names() []string {
	names := make([]string, len(Scenarios))
	for i, s := range Scenarios {
		names[i] = s.Name
	}
	return names
}

// Find returns the scenario called name.
func Find(name string) (Scenario, bool) {
	for _, s := range Scenarios {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// Export streams one pass of the scenario as `journalctl -o export` would, so that the
// replay carries host, unit, cursor and time like a real journal.
func (s Scenario) Export() io.ReadCloser { return s.export(nil) }

// export is Export with onPass told of every forward pass of the services that publish them.
func (s Scenario) export(onPass func(sim.Pass)) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		sc := s.Sim()
		sc.Format = sim.FormatExport
		sc.OnPass = onPass
		_, err := sim.Generate(sc, pw, nil)
		pw.CloseWithError(err)
	}()
	return pr
}

// Source is the demo's journal: the scenario replayed at speed, looping, its entries
// restamped with now as they are emitted when the scenario runs on the wall clock. Its Close
// ends the replay.
func (s Scenario) Source(speed float64, now func() time.Time, sleep func(time.Duration)) ingest.Source {
	return s.source(speed, now, sleep, nil)
}

// source is Source with pace, when set, publishing each loop's forward passes.
func (s Scenario) source(speed float64, now func() time.Time, sleep func(time.Duration), pace *pacer) ingest.Source {
	open := s.Export
	if pace != nil {
		open = func() io.ReadCloser {
			pace.open(s.Sim().Start)
			return s.export(pace.add)
		}
	}
	r := pipeline.NewReplay(pipeline.ReplayOptions{Open: open, Speed: speed, Now: now, Sleep: sleep})
	o := ingest.PollOptions{Now: now}
	if !s.WallClock {
		return ingest.Poll(r, o)
	}
	return ingest.Poll(wallClock{src: r, now: now}, o)
}

// wallClock stamps each entry of src with the time it is emitted: the replay paces entries
// as the recording spaced them (scaled by the speed), so the stamps are the recording's
// rhythm in real time, and a daemon that falls behind stamps late, as journald would.
type wallClock struct {
	src *pipeline.Replay
	now func() time.Time
}

func (w wallClock) Close() error { return w.src.Close() }

// Next is src's Next with the entry's time replaced by now.
func (w wallClock) Next(e *ingest.Entry, wait time.Duration) (bool, error) {
	ok, err := w.src.Next(e, wait)
	if ok {
		e.Time = w.now().UnixMicro()
	}
	return ok, err
}

// Log streams one pass of the scenario's data, generated by the simulator built into the
// binary, so there is no data file to go stale: the tour in its own shape (journalctl -o
// short-iso, as the docs' examples show it), a scenario on the wall clock as its live replay
// reads it (an export stream, so that the report's units are the live page's).
func (sc Scenario) Log() io.ReadCloser {
	if sc.WallClock {
		return sc.Export()
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := sim.Generate(sc.Sim(), pw, nil)
		pw.CloseWithError(err)
	}()
	return pr
}
