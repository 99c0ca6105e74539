package sim_test

import (
	"fmt"
	"os"
	"time"

	"github.com/specwatch/specwatch/sim"
)

// A single request on an SGLang DDTree service: the lines it writes and the truth behind them.
func ExampleGenerate() {
	s := sim.Scenario{
		Seed:     1,
		Start:    time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC),
		Duration: time.Minute,
		Services: []sim.Service{{
			Host: "gpu07", Engine: sim.SGLang, Ranks: []string{"TP0"},
			Step:       sim.StepModel{A: 0.034, B: 2e-5, Noise: -1},
			Workload:   sim.Workload{Script: []sim.Request{{Prompt: 1000, Output: 300}}},
			Acceptance: sim.Acceptance{DraftLen: 15, NoiseSD: -1, Phases: []sim.Phase{{Mean: 2.9}}},
		}},
	}
	var truths []sim.Truth
	sum, err := sim.Generate(s, os.Stdout, func(t sim.Truth) { truths = append(truths, t) })
	for _, t := range truths {
		fmt.Printf("line %d: context %d, step %.1f ms, commit %.2f, %.2f tok/s\n",
			t.Record, t.Context, t.StepSeconds*1000, t.CommitLen, t.TPS)
	}
	fmt.Println(sum.Lines, err)
	// Output:
	// [2026-11-20 09:00:02 TP0] Decode batch, #running-req: 1, #token: 1116, token usage: 0.00, accept len: 2.90, accept rate: 0.13, cuda graph: True, gen throughput (token/s): 51.49, #queue-req: 0
	// [2026-11-20 09:00:04 TP0] Decode batch, #running-req: 1, #token: 1232, token usage: 0.00, accept len: 2.90, accept rate: 0.13, cuda graph: True, gen throughput (token/s): 49.45, #queue-req: 0
	// [2026-11-20 09:00:07 TP0] Decode batch, #running-req: 1, #token: 1348, token usage: 0.00, accept len: 2.90, accept rate: 0.13, cuda graph: True, gen throughput (token/s): 47.57, #queue-req: 0
	// line 1: context 1116, step 56.3 ms, commit 2.90, 51.49 tok/s
	// line 2: context 1232, step 58.6 ms, commit 2.90, 49.45 tok/s
	// line 3: context 1348, step 61.0 ms, commit 2.90, 47.57 tok/s
	// 3 <nil>
}
