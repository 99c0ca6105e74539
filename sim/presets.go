package sim

import (
	"fmt"
	"time"
)

// presetStart is the common start of the presets: a fixed morning, so that outputs never depend
// on when they were generated.
var presetStart = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// Canonical step model (DESIGN.md): 34 ms at 13 context tokens, 144 ms at 5.5k, attention-bound.
const (
	canonicalB = 0.110 / 5540          // s per context token
	canonicalA = 0.034 - 13*canonicalB // s
)

// ContextGrowth is the canonical example: one request of a 13-token prompt generating ~5.5k
// tokens on a DDTree SGLang service (draft 15), arriving one second after the start. Context grows 13 → 5.5k, the text turns from easy to hard
// reasoning (commit length 7.5 → 2.9) and the step grows 34 ms → 144 ms, so throughput falls
// ~220 → ~20 tok/s with steps as the model predicts; too short for acceptance_drop to arm, so
// the fall of commit length is "unjudged" (text or drafter is not known), not "expected".
func ContextGrowth(seed uint64) Scenario {
	return Scenario{
		Name: "context-growth", Seed: seed, Start: presetStart, Duration: 10 * time.Minute,
		Format: FormatRaw,
		Services: []Service{{
			Host: "gpu07", Unit: "sglang.service", Engine: SGLang, Ranks: []string{"TP0"},
			Step:        StepModel{A: canonicalA, B: canonicalB, Noise: 0.01},
			Workload:    Workload{Script: []Request{{At: time.Second, Prompt: 13, Output: 5540}}},
			Acceptance:  Acceptance{DraftLen: 15, NoiseSD: 0.05, Phases: []Phase{{Name: "easy to hard", Mean: 7.5, To: 2.9, Tokens: 5540}}},
			CustomStats: true, PrefillLines: true, StartupLines: true,
		}},
	}
}

// textPhases is text-dependent acceptance for a long draft: code and boilerplate accept far more
// than free chat or step-by-step reasoning.
func textPhases(easy, chat, hard float64) []Phase {
	return []Phase{
		{Name: "easy", Mean: easy, Weight: 0.25},
		{Name: "chat", Mean: chat, Weight: 0.45},
		{Name: "hard reasoning", Mean: hard, Weight: 0.30},
	}
}

// HealthyDay is 24 hours (from 09:00) of one healthy SGLang EAGLE service (draft 7): Poisson
// arrivals every 90 s on average, every 20 minutes at night (22:00–06:00), so idle gaps of
// seconds to an hour; up to 2 concurrent requests, prompts 200..24k and outputs 150..6000 tokens
// (contexts 200..30k per request), acceptance 2.7 / 4.2 / 6.5 by text, step 32 ms + 4.5 µs per
// context token, journalctl -o short-iso with 25 % noise. Nothing is wrong: every anomaly
// detector must stay quiet.
func HealthyDay(seed uint64) Scenario {
	return Scenario{
		Name: "healthy-day", Seed: seed, Start: presetStart, Duration: 24 * time.Hour,
		Format: FormatShortISO, Noise: 0.25,
		Services: []Service{{
			Host: "gpu07", Unit: "sglang.service", Engine: SGLang, Ranks: []string{"TP0"},
			Step: StepModel{A: 0.032, B: 4.5e-6},
			Workload: Workload{Concurrency: 2, ArrivalMean: 90 * time.Second,
				PromptMin: 200, PromptMax: 24000, OutputMin: 150, OutputMax: 6000, MaxContext: 30000,
				Shifts: []Shift{
					{At: 13 * time.Hour, ArrivalMean: 20 * time.Minute},
					{At: 21 * time.Hour, ArrivalMean: 90 * time.Second},
				}},
			Acceptance:   Acceptance{DraftLen: 7, Phases: textPhases(6.5, 4.2, 2.7)},
			PrefillLines: true,
		}},
	}
}

// Demo is three hours of two services, what `specwatch demo` shows:
//
//   - gpu07 sglang-ddtree.service: SGLang with a DDTree drafter (draft 15) on two data-parallel
//     ranks "DP0 TP0" and "DP1 TP1", canonical step model, acceptance 7.5 / 4.5 / 2.9 by text,
//     with avg_commit_len key=value lines. Rank DP1 TP1's drafter is stuck (commit length 1.00)
//     from 1h10m for 15 minutes.
//   - gpu08 vllm.service: vLLM with EAGLE (3 speculative tokens), "Engine 000", up to 8
//     concurrent requests, step 18 ms + 0.4 µs per KV token, SpecDecoding generation 3 with ANSI
//     colour. From 1h50m to 2h30m the workload turns to long prompts (20k..60k tokens): a
//     throughput fall that context explains, not a fault.
func Demo(seed uint64) Scenario {
	return Scenario{
		Name: "demo", Seed: seed, Start: presetStart, Duration: 3 * time.Hour,
		Format: FormatShortISO, Noise: 0.3,
		Services: []Service{
			{
				Host: "gpu07", Unit: "sglang-ddtree.service", Engine: SGLang,
				Ranks: []string{"DP0 TP0", "DP1 TP1"},
				Step:  StepModel{A: canonicalA, B: canonicalB},
				Workload: Workload{ArrivalMean: 90 * time.Second, PromptMin: 200, PromptMax: 8000,
					OutputMin: 150, OutputMax: 2500},
				Acceptance:  Acceptance{DraftLen: 15, Phases: textPhases(7.5, 4.5, 2.9)},
				CustomStats: true, PrefillLines: true, StartupLines: true,
				Faults: []Fault{{Kind: StuckAtOne, Start: 70 * time.Minute, Duration: 15 * time.Minute,
					Ranks: []string{"DP1 TP1"}}},
			},
			{
				Host: "gpu08", Unit: "vllm.service", Engine: VLLM, Ranks: []string{"Engine 000"},
				Color: true, KVTokens: 600000,
				Step: StepModel{A: 0.018, B: 4e-7},
				Workload: Workload{Concurrency: 8, ArrivalMean: 6 * time.Second, PromptMin: 500,
					PromptMax: 6000, OutputMin: 100, OutputMax: 1500, MaxContext: 65536,
					Shifts: []Shift{
						{At: 110 * time.Minute, PromptMin: 20000, PromptMax: 60000},
						{At: 150 * time.Minute, PromptMin: 500, PromptMax: 6000},
					}},
				Acceptance: Acceptance{DraftLen: 3, NoiseSD: 0.08, Phases: textPhases(3.3, 2.7, 2.2)},
			},
		},
	}
}

// Mixed is a benchmark corpus of about lines records in journalctl -o short: an SGLang service
// with four DP ranks (decode, prefill and avg_commit_len lines), a vLLM service with two engines
// (engine and SpecDecoding lines), a generic key=value DDTree build and a llama.cpp server, all
// kept busy, with 70 % noise.
func Mixed(seed uint64, lines int) Scenario {
	busy := func(conc int) Workload {
		return Workload{Concurrency: conc, PromptMin: 200, PromptMax: 16000, OutputMin: 100, OutputMax: 4000}
	}
	return Scenario{
		Name: "mixed", Seed: seed, Start: presetStart, Duration: 365 * 24 * time.Hour,
		Format: FormatShort, Noise: 0.7, MaxLines: lines,
		Services: []Service{
			{Host: "gpu01", Unit: "sglang.service", Engine: SGLang,
				Ranks: []string{"DP0 TP0", "DP1 TP1", "DP2 TP2", "DP3 TP3"}, Prefix: PrefixMillis,
				Step: StepModel{A: 0.030, B: 2e-6}, Workload: busy(8), KVTokens: 200000,
				Acceptance:   Acceptance{DraftLen: 7, Phases: textPhases(6.5, 4.2, 2.7)},
				PrefillLines: true, CustomStats: true},
			{Host: "gpu02", Unit: "vllm.service", Engine: VLLM, Ranks: []string{"Engine 000", "Engine 001"},
				Step: StepModel{A: 0.018, B: 4e-7}, Workload: busy(16),
				Acceptance: Acceptance{DraftLen: 4, Phases: textPhases(3.8, 2.9, 2.2)}},
			{Host: "gpu03", Unit: "ddtree.service", Engine: Generic, Style: GenericSpace,
				Step: StepModel{A: canonicalA, B: canonicalB}, Workload: busy(1),
				Acceptance: Acceptance{DraftLen: 15, Phases: textPhases(7.5, 4.5, 2.9)}},
			{Host: "gpu04", Unit: "llama-server.service", Engine: LlamaCpp,
				Step: StepModel{A: 0.012, B: 1e-6}, Workload: busy(2),
				Acceptance: Acceptance{DraftLen: 16 - 1, Phases: textPhases(5, 3.5, 2.2)}},
		},
	}
}

// Chatty is the second benchmark corpus: about lines records of one SGLang unit in journalctl
// -o short-iso, as `journalctl -u sglang -o short-iso > file` gives a new user. Four DP ranks
// kept busy write decode lines (about 30 % of the records) and a prefill line when requests are
// admitted (about 10 %); the rest is the server's own chatter: uvicorn access lines under
// SGLang's prefix, tracebacks and warnings, tool-parser complaints and scheduler chatter.
func Chatty(seed uint64, lines int) Scenario {
	return Scenario{
		Name: "chatty", Seed: seed, Start: presetStart, Duration: 365 * 24 * time.Hour,
		Format: FormatShortISO, Noise: 0.6, MaxLines: lines,
		NoiseMix: NoiseMix{ServerAccess: 50, ToolParser: 20, Traceback: 4, Warning: 3, Chatter: 8},
		Services: []Service{{
			Host: "gpu07", Unit: "sglang.service", Engine: SGLang, PID: 48211,
			Ranks: []string{"DP0 TP0", "DP1 TP1", "DP2 TP2", "DP3 TP3"},
			Step:  StepModel{A: 0.030, B: 2e-6}, KVTokens: 400000,
			Workload: Workload{Concurrency: 8, PromptMin: 200, PromptMax: 16000,
				OutputMin: 1000, OutputMax: 8000},
			Acceptance:   Acceptance{DraftLen: 7, Phases: textPhases(6.5, 4.2, 2.7)},
			PrefillLines: true,
		}},
	}
}

// Preset returns a preset scenario by name: "context-growth", "healthy-day", "demo",
// "incidents", "seed-sweep" (interval 40 with the step_ms stats line), or "mixed" or "chatty" (100 000 lines).
func Preset(name string, seed uint64) (Scenario, error) {
	switch name {
	case "context-growth":
		return ContextGrowth(seed), nil
	case "healthy-day":
		return HealthyDay(seed), nil
	case "demo":
		return Demo(seed), nil
	case "incidents":
		return Incidents(seed), nil
	case "seed-sweep":
		return SeedSweep(seed, SweepOptions{CustomStats: true}), nil
	case "mixed":
		return Mixed(seed, 100000), nil
	case "chatty":
		return Chatty(seed, 100000), nil
	}
	return Scenario{}, fmt.Errorf("sim: unknown preset %q", name)
}
