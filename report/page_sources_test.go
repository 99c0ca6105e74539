package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/model"
)

// fusedSeries is a series fed by logs and /metrics, with acceptance per position, advice and a
// restart.
func fusedSeries() model.Report {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	return model.Report{Series: []model.SeriesReport{{
		Labels: model.Labels{Host: "gpu01", Unit: "vllm.service", Engine: "vllm", Rank: "Engine 000"}, Samples: 120,
		First: t0, Last: t0.Add(10 * time.Minute), ContextUnit: "kv_percent", Anomalies: []model.AnomalyJSON{}, Verdict: "healthy",
		CommitLen: &model.CommitStats{Mean: 2.48, P10: 2.4, P50: 2.48, P90: 2.55, Last: 2.5},
		PerPosition: &model.PerPosition{Acceptance: []float64{0.7, 0.45, 0.25, 0.06, 0.02}, Conditional: []float64{0.7, 0.643, 0.556, 0.24, 0.333}, Samples: 60,
			Advice: &model.PositionAdvice{Configured: 5, Suggested: 3, CommitLen: 2.48, SuggestedCommitLen: 2.4, Detail: "num_speculative_tokens 5 is too high: positions 4-5 accept 6 % and 2 %."}},
		Events:  []model.EventJSON{{Kind: "restart", Time: t0.Add(5 * time.Minute), Detail: "the engine's counters went back"}},
		Sources: &model.Sources{Inputs: []string{"logs", "metrics"}, CommitLen: "metrics", PerPosition: "metrics", Step: "logs"},
	}}}
}

func TestFusionText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, fusedSeries()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"acceptance per draft position: 1: 70 % 2: 45 % (×0.64) 3: 25 % (×0.56) 4: 6 % (×0.24) 5: 2 % (×0.33)",
		"Sources: commit length from the engine's /metrics · per position from the engine's /metrics · step time and context from logs.",
		"* restart 2026-12-01 12:05:00: the engine's counters went back",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

func TestFusionPage(t *testing.T) {
	var b bytes.Buffer
	if err := WritePage(&b, fusedSeries(), nil, PageOptions{Title: "t", Now: time.Date(2026, 12, 1, 13, 0, 0, 0, time.UTC), Version: "v"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`class="plot perpos"`, "Acceptance per draft position", "position 4: accepted in 6.0 % of verify steps",
		`<g class="bar warn">`, "costs more than it adds",
		"Sources: commit length from the engine&#39;s /metrics", "Engine restart at 2026-12-01",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// positions 1-3 pay, 4-5 do not: three bars of one class, two of the other
	if n, m := strings.Count(page, `<g class="bar acc">`), strings.Count(page, `<g class="bar warn">`); n != 3 || m != 2 {
		t.Errorf("%d paying and %d costly bars, want 3 and 2", n, m)
	}
}
