package demo

import (
	"context"
	"time"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/sim"
	"github.com/specwatch/specwatch/sim/enginemetrics"
	"github.com/specwatch/specwatch/sim/fwdpub"
)

// The engines scenario: the newest telemetry beside the logs. Its SGLang rank publishes every
// forward pass (the step model is fitted per iteration), its TensorRT-LLM service logs two
// ranks' iterations, and a second TensorRT-LLM engine is read from its two metrics endpoints.
const (
	PassesHost   = "gpu05"
	PassesUnit   = "sglang-eagle.service"
	TRTLogHost   = "gpu06"
	TRTLogUnit   = "trtllm-serve.service"
	TRTScrapHost = "demo-gpu07"
	TRTScrapUnit = "trtllm-mtp.service"
	enginesLen   = 20 * time.Minute
)

// Engines is the engines scenario's simulation.
func Engines(seed uint64) sim.Scenario {
	return sim.Scenario{
		Name: "engines", Seed: seed, Start: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), Duration: enginesLen,
		Format: sim.FormatShortISO, Noise: 0.2,
		Services: []sim.Service{
			{
				Host: PassesHost, Unit: PassesUnit, Engine: sim.SGLang, Ranks: []string{""}, ForwardPass: true, PrefillLines: true,
				Step:       sim.StepModel{A: 0.030, B: 2e-6},
				Workload:   sim.Workload{Concurrency: 8, ArrivalMean: 2 * time.Second, PromptMin: 500, PromptMax: 12000, OutputMin: 100, OutputMax: 1200},
				Acceptance: sim.Acceptance{DraftLen: 7, Phases: []sim.Phase{{Name: "chat", Mean: 3.5, Weight: 1}}},
			},
			{
				Host: TRTLogHost, Unit: TRTLogUnit, Engine: sim.TRTLLM, Ranks: []string{"", "1"},
				Step:       sim.StepModel{A: 0.012, B: 4e-7},
				Workload:   sim.Workload{Concurrency: 6, ArrivalMean: 3 * time.Second, PromptMin: 300, PromptMax: 6000},
				Acceptance: sim.Acceptance{DraftLen: 3, Phases: []sim.Phase{{Name: "code", Mean: 2.6, Weight: 1}}},
			},
		},
	}
}

// startPasses serves the SGLang rank's forward-pass publisher on a loopback port and adds it to
// cfg's forward_pass list; pace publishes each pass the replay's simulation makes at its time
// (scaled by speed, from the loop's start). stop closes the publisher.
func startPasses(cfg *config.Config) (pace *pacer, stop func(), err error) {
	pub, err := fwdpub.Listen("127.0.0.1:0", fwdpub.Options{WorkerID: "demo-sglang"})
	if err != nil {
		return nil, nil, err
	}
	cfg.ForwardPass = append(cfg.ForwardPass, config.ForwardPassConfig{Engine: "sglang", Endpoint: pub.Endpoint(),
		Labels: map[string]string{"host": PassesHost, "unit": PassesUnit}})
	pc := &pacer{pub: pub, in: make(chan paced, 4096), done: make(chan struct{})}
	return pc, func() { close(pc.done); _ = pub.Close() }, nil
}

// pacer publishes passes at their simulated time, as the engine would have: the simulation runs
// ahead of the replay by at most a few lines, so the queue stays short.
type pacer struct {
	pub  *fwdpub.Publisher
	in   chan paced
	done chan struct{} // closed at stop: a simulation still running stops queueing
}

// paced is a pass, or (loop set) the start of a loop: its passes count from start.
type paced struct {
	loop  bool
	start time.Time
	p     sim.Pass
}

// open starts a loop whose simulation begins at start.
func (pc *pacer) open(start time.Time) { pc.queue(paced{loop: true, start: start}) }

// add queues a pass (sim.Scenario.OnPass).
func (pc *pacer) add(p sim.Pass) { pc.queue(paced{p: p}) }

func (pc *pacer) queue(x paced) {
	select {
	case pc.in <- x:
	case <-pc.done:
	}
}

// run publishes until ctx ends.
func (pc *pacer) run(ctx context.Context, speed float64, now func() time.Time, sleep func(time.Duration)) {
	var wall0, sim0 time.Time
	for {
		var x paced
		select {
		case <-ctx.Done():
			return
		case x = <-pc.in:
		}
		if x.loop {
			wall0, sim0 = now(), x.start
			continue
		}
		due := wall0.Add(time.Duration(float64(x.p.Time.Sub(sim0)) / speed))
		if d := due.Sub(now()); d > 0 {
			sleep(d)
		}
		pc.pub.Publish(fwdpub.Metrics{WallTime: x.p.StepSeconds, Scheduled: fwdpub.Requests{NumDecode: x.p.Running, SumDecodeKV: x.p.Context}})
	}
}

// startTRTLLM serves a simulated trtllm-serve's /metrics (iteration statistics, drained) and
// /prometheus/metrics on a loopback port, its iterations advancing with the clock, and adds
// both to cfg's scrape targets.
func startTRTLLM(cfg *config.Config) (stop func(), err error) {
	eng := &enginemetrics.TRTLLM{Ranks: 2, MaxDraft: 3}
	base, stopServer, err := serveLoopback(eng)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	tick := time.NewTicker(100 * time.Millisecond)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				eng.Advance(4) // 40 iterations a second per rank: well within the queue at a 2 s scrape
			}
		}
	}()
	cfg.Scrape = append(cfg.Scrape, config.ScrapeConfig{URL: base + "/prometheus/metrics", IterationStatsURL: base + "/metrics",
		Interval: 2 * time.Second, Timeout: time.Second, Labels: map[string]string{"host": TRTScrapHost, "unit": TRTScrapUnit}})
	return func() {
		tick.Stop()
		close(done)
		stopServer()
	}, nil
}
