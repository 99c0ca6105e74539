package sim

import "time"

// SweepOptions vary what a seed-style sweep's engine is configured to print.
type SweepOptions struct {
	// DecodeInterval is the engine's --decode-log-interval; zero selects SGLang's 40.
	DecodeInterval int
	// CustomStats adds DDTree's avg_commit_len=…, step_ms=… line after every decode line, so
	// the step is logged directly as well as derivable from the wall-averaged throughput.
	CustomStats bool
	// ProfileLines adds DFlash's [DFLASH profile] … total=…s line after every decode line.
	ProfileLines bool
	// Format is the transport: FormatRaw (the zero value) keeps only the engine's own stamps,
	// whole seconds; the journal's formats add journald's microsecond receive times.
	Format Format
}

// sweepRequest is one point of the sweep: a prompt padded to Prompt tokens, Output generated.
type sweepRequest struct{ prompt, output int }

// sweepPoints are what a benchmark client measuring a drafter sends, one request at a time: a
// short prompt, prompts padded to 1.5k, 3k and 5.5k tokens, and a 1,500-token answer at 3.5k
// context.
var sweepPoints = []sweepRequest{{13, 2000}, {1500, 2000}, {3000, 2000}, {5500, 2000}, {3500, 1500}}

// sweepRepeats is how often the client repeats the sweep; sweepSpacing the time between two
// requests' starts, longer than any request takes (under 70 s), so that every request begins
// after an idle gap, as a sequential client's do.
const (
	sweepRepeats = 6
	sweepSpacing = 90 * time.Second
)

// SeedSweep is a sequential benchmark sweep on one SGLang DDTree rank (draft 15, the canonical
// step model, text-dependent acceptance 7.5 / 4.5 / 2.9): each request of sweepPoints in turn,
// repeated sweepRepeats times, every request after an idle gap. Nothing is wrong: the step model
// must come out at the canonical a and b and the verdict "expected" (or "unjudged" where the run
// is too short for acceptance_drop to arm), whatever o says the engine
// prints.
func SeedSweep(seed uint64, o SweepOptions) Scenario {
	var script []Request
	for rep := range sweepRepeats {
		for i, p := range sweepPoints {
			n := rep*len(sweepPoints) + i
			script = append(script, Request{At: time.Second + time.Duration(n)*sweepSpacing,
				Prompt: p.prompt, Output: p.output, Phase: n % 3})
		}
	}
	return Scenario{
		Name: "seed-sweep", Seed: seed, Start: presetStart,
		Duration:       time.Duration(len(script)+1) * sweepSpacing,
		Format:         o.Format,
		DecodeInterval: o.DecodeInterval,
		Services: []Service{{
			Host: "gpu07", Unit: "sglang.service", Engine: SGLang, Ranks: []string{"TP0"},
			Step:         StepModel{A: canonicalA, B: canonicalB},
			Workload:     Workload{Script: script, MaxContext: 32768},
			Acceptance:   Acceptance{DraftLen: 15, Phases: textPhases(7.5, 4.5, 2.9)},
			CustomStats:  o.CustomStats,
			ProfileLines: o.ProfileLines,
			PrefillLines: true, StartupLines: true,
		}},
	}
}

// CanonicalStep is the step model of ContextGrowth, SeedSweep and the demo's SGLang service:
// the ground truth a fit of their logs must find.
func CanonicalStep() StepModel { return StepModel{A: canonicalA, B: canonicalB} }
