package model

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/sim"
)

// Seed-style sweeps (a short prompt, prompts padded to 1.5k/3k/5.5k, a 1,500-token answer at
// 3.5k context, one request at a time) must give the simulator's step model within 10 % and
// the verdict "expected" whatever the engine's --decode-log-interval and whether or not a
// stats line logs the step: the interval is learned from the lines, and a logged step is
// preferred to one derived from the wall-averaged throughput.
func TestSeedSweepStepModel(t *testing.T) {
	truth := sim.CanonicalStep()
	stats := []struct {
		name            string
		custom, profile bool
	}{{"decode lines only", false, false}, {"step_ms stats line", true, false},
		{"DFlash profile line", false, true}, {"both", true, true}}
	for _, iv := range []int{10, 40, 100} {
		for _, st := range stats {
			for _, f := range []sim.Format{sim.FormatRaw, sim.FormatShortPrecise} {
				for seed := uint64(1); seed <= 3; seed++ {
					name := fmt.Sprintf("interval %d, %s, %s, seed %d", iv, st.name, f, seed)
					sc := sim.SeedSweep(seed, sim.SweepOptions{DecodeInterval: iv, CustomStats: st.custom, ProfileLines: st.profile, Format: f})
					set := run(t, sc, Options{}, nil)
					r := set.wordedReport()
					if len(r.Series) != 1 {
						t.Fatalf("%s: %d series", name, len(r.Series))
					}
					s := r.Series[0]
					m := s.StepModel
					if m == nil {
						t.Errorf("%s: no step model: %s", name, s.Explanation)
						continue
					}
					ea := math.Abs(m.FixedMS-truth.A*1000) / (truth.A * 1000)
					eb := math.Abs(m.MSPer1kToken-truth.B*1e6) / (truth.B * 1e6)
					if seed == 1 {
						t.Logf("%s: a %.2f ms (%+.1f %%), b %.2f ms/1k (%+.1f %%), n %d, verdict %s",
							name, m.FixedMS, 100*(m.FixedMS/(truth.A*1000)-1), m.MSPer1kToken, 100*(m.MSPer1kToken/(truth.B*1e6)-1), m.N, s.Verdict)
					}
					if ea > 0.10 || eb > 0.10 {
						t.Errorf("%s: fit %.2f ms + %.2f ms per 1k, want %.2f + %.2f within 10 %%", name,
							m.FixedMS, m.MSPer1kToken, truth.A*1000, truth.B*1e6)
					}
					// one request of a few minutes: acceptance_drop may not have armed, and then the
					// fall of commit length is unjudged; the steps are as the model predicts either way
					if s.Verdict != "expected" && (s.Verdict != "unjudged" || !strings.Contains(s.Explanation, "no step-time regression")) {
						t.Errorf("%s: verdict %q, want expected or unjudged with no step-time regression: %s", name, s.Verdict, s.Explanation)
					}
					if n, ok := set.order[0].DecodeInterval(); !ok || n != iv {
						t.Errorf("%s: decode interval %d (learned %v), want %d learned", name, n, ok, iv)
					}
				}
			}
		}
	}
}
