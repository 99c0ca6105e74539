package sim

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// tiny is a one-minute scenario small enough to read in a golden file: a two-rank DDTree SGLang
// service, a coloured vLLM engine and a llama.cpp server, a quarter of the lines noise.
func tiny(f Format) Scenario {
	w := Workload{Concurrency: 2, PromptMin: 300, PromptMax: 3000, OutputMin: 200, OutputMax: 600}
	return Scenario{
		Name: "tiny", Seed: 11, Duration: time.Minute, Format: f, Noise: 0.25,
		Services: []Service{
			{Host: "gpu07", Unit: "sglang.service", Engine: SGLang, Ranks: []string{"DP0 TP0", "DP1 TP1"},
				Step: StepModel{A: canonicalA, B: canonicalB}, Workload: w, CustomStats: true,
				Acceptance: Acceptance{DraftLen: 15, Phases: textPhases(7.5, 4.5, 2.9)}},
			{Host: "gpu08", Unit: "vllm.service", Engine: VLLM, Style: VLLMSpecGen2, Color: true,
				Step: StepModel{A: 0.018, B: 4e-7}, Workload: w,
				Acceptance: Acceptance{DraftLen: 3, Phases: textPhases(3.3, 2.7, 2.2)}},
			{Host: "gpu09", Unit: "llama-server.service", Engine: LlamaCpp,
				Step:       StepModel{A: 0.012, B: 1e-6},
				Workload:   Workload{PromptMin: 300, PromptMax: 3000, OutputMin: 1000, OutputMax: 2000},
				Acceptance: Acceptance{DraftLen: 15, Phases: textPhases(5, 3.5, 2.2)}},
		},
	}
}

// TestGolden pins the exact bytes of small scenarios; run with -update after an intended change
// and read the diff.
func TestGolden(t *testing.T) {
	cases := []struct {
		file string
		s    Scenario
	}{
		{"context-growth.raw.golden", ContextGrowth(1)},
		{"tiny.short-precise.golden", tiny(FormatShortPrecise)},
		{"tiny.json.golden", tiny(FormatJSON)},
		{"tiny.export.golden", tiny(FormatExport)},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got, _, _ := run(t, c.s)
			path := filepath.Join("testdata", c.file)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
				for i := range min(len(gl), len(wl)) {
					if !bytes.Equal(gl[i], wl[i]) {
						t.Fatalf("line %d differs:\n got %q\nwant %q", i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("%d lines, golden has %d", len(gl), len(wl))
			}
		})
	}
}
