package sim

import "time"

// The incidents loop's timeline, offsets from its start. The episodes are sized for the shipped
// alert rules' `for:` (30 s critical, 2 m warning) in wall time: the slowdown lasts 7.5 minutes,
// so its warning still fires when the loop is replayed 3× faster than real time to a Prometheus
// scraping and evaluating every second (2× at the usual 15 s), and the stuck drafter's 3
// minutes give its critical alert a minute at that pace. The opening gives
// each series about 35 decode lines, more than the step fit's warm-up, so the slowdown is
// judged against a fitted model, and the closing leaves time for both alerts to resolve and
// the service to look healthy again before the loop starts over.
const (
	IncidentsLength        = 12 * time.Minute
	IncidentsCollapseStart = 90 * time.Second
	IncidentsCollapseEnd   = 9 * time.Minute
	IncidentsStuckStart    = 3 * time.Minute
	IncidentsStuckEnd      = 6 * time.Minute
	// IncidentsCollapseShare is the share of its throughput the stalled host delivers: below
	// the model's 0.5 (throughput_collapse), and a stretch of the log's rhythm (1/0.4 = 2.5×)
	// short of the 3× that would make each line look like one after an idle pause.
	IncidentsCollapseShare = 0.4
)

// Where the incidents happen: one single-rank SGLang service per host, so that each alert
// names its own host and no rank is compared with a broken peer.
const (
	IncidentsStuckHost    = "gpu07"
	IncidentsStuckUnit    = "sglang-eagle.service"
	IncidentsCollapseHost = "gpu08"
	IncidentsCollapseUnit = "sglang-ddtree.service"
)

// Incidents is a twelve-minute loop of two busy SGLang services that go from healthy into
// incidents and back, what `specwatch demo --scenario incidents` replays in real time so that a
// Prometheus and an Alertmanager see alerts fire and resolve:
//
//   - gpu08 sglang-ddtree.service (DDTree, draft 15, 30 ms + 2 µs per context token, 2 long
//     requests kept running, 2,000-6,000 tokens each): from 1m30s to 9m the host stalls and
//     delivers 40 % of the throughput its steps allow (throughput_collapse, a warning). Long
//     requests, because the model trusts a stretched line only when the context grew by what
//     the same requests would have generated, which a request change breaks.
//   - gpu07 sglang-eagle.service (EAGLE, draft 7, 32 ms + 4.5 µs per context token, 4 requests
//     kept running): from 3m to 6m its drafter is stuck at commit length 1.00
//     (commit_len_stuck, critical).
//
// Both are healthy otherwise; nothing restarts, so the loop can start over without a restart
// comparison. journalctl -o short-iso with 30 % noise.
func Incidents(seed uint64) Scenario {
	busy := Workload{Concurrency: 4, PromptMin: 300, PromptMax: 6000, OutputMin: 300, OutputMax: 3000,
		MaxContext: 16384}
	long := Workload{Concurrency: 2, PromptMin: 1000, PromptMax: 8000, OutputMin: 2000, OutputMax: 6000,
		MaxContext: 16384}
	return Scenario{
		Name: "incidents", Seed: seed, Start: presetStart, Duration: IncidentsLength,
		Format: FormatShortISO, Noise: 0.3,
		Services: []Service{
			{
				Host: IncidentsStuckHost, Unit: IncidentsStuckUnit, Engine: SGLang, Ranks: []string{"TP0"},
				Step:         StepModel{A: 0.032, B: 4.5e-6},
				Workload:     busy,
				Acceptance:   Acceptance{DraftLen: 7, Phases: textPhases(6.5, 4.2, 2.7)},
				PrefillLines: true,
				Faults: []Fault{{Kind: StuckAtOne, Start: IncidentsStuckStart,
					Duration: IncidentsStuckEnd - IncidentsStuckStart}},
			},
			{
				Host: IncidentsCollapseHost, Unit: IncidentsCollapseUnit, Engine: SGLang, Ranks: []string{"TP0"},
				Step:         StepModel{A: 0.030, B: 2e-6},
				Workload:     long,
				Acceptance:   Acceptance{DraftLen: 15, Phases: textPhases(7.5, 4.5, 2.9)},
				PrefillLines: true,
				Faults: []Fault{{Kind: Collapse, Size: 1 - IncidentsCollapseShare, Start: IncidentsCollapseStart,
					Duration: IncidentsCollapseEnd - IncidentsCollapseStart}},
			},
		},
	}
}
