package words

import (
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/model/schema"
)

// Every code has a sentence, and a detail cites its numbers as the engines' figures are quoted.
func TestDetail(t *testing.T) {
	for c := schema.CodeNone + 1; c < schema.NumCodes; c++ {
		if Detail(schema.Ev(c, 1, 2, 3, 4, 5, 6, 7), false) == "" {
			t.Errorf("code %d has no sentence", c)
		}
	}
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC).UnixNano()
	stale := schema.Ev(schema.CodeStale, float64(95*time.Second+400*time.Millisecond))
	stale.T[0] = at
	restart := schema.Ev(schema.CodeRestartFine, 1, 4, 120, 1, 2.9, 3.1, -6)
	restart.T[0] = at
	for _, c := range []struct {
		e    schema.Evidence
		kv   bool
		want string
	}{
		{schema.Ev(schema.CodeStuckRequests, 1, 3, 1, 0), false, "commit length 1.00 for 3 consecutive requests (1 running): the drafter contributes nothing"},
		{schema.Ev(schema.CodeStuckSamples, 1, 12, 8, 3), false, "commit length 1.00 for 12 consecutive samples with requests running (8): the drafter contributes nothing (yet accepted depth says 3.00: check the metrics too)"},
		{schema.Ev(schema.CodeCollapse, 12.5, 31, 40.3, 5553, 2.9, 30), false, "measured 12.5 tok/s is 31 % of the 40.3 tok/s the model predicts at 5,553 tokens of context with commit 2.90, for 30 samples"},
		{schema.Ev(schema.CodeRegression, 40, 12.25, 80, 30, 2.5, 3), true, "steps are 40 % slower than the model predicts at 12.2 % KV cache usage (80.0 ms expected, fit 30.0 ms + 2.50 ms per 1 % KV), sustained for 3 windows"},
		{stale, false, "no statistics for 1m35s while the unit keeps logging (last sample 2026-11-20 12:00:00)"},
		{restart, false, "The engine restarted at 2026-11-20 12:00:00; after it, steps +4 % at the contexts it ran before (120 decode points against the old fit) and commit length 2.90 against 3.10 before (-6 %): no regression."},
		{schema.Ev(schema.CodeSpecOff, float64(5*time.Minute), 4, schema.SpecCauseGate, 0.312, 0.5), false, "no drafts for 5m0s at 4 running requests, a batch size it drafted at before: speculation switched off (TensorRT-LLM's SpeculationGate turned it off for good: rolling accepted drafts 0.312 below the threshold 0.5); tokens per step fell to 1"},
	} {
		if got := Detail(c.e, c.kv); got != c.want {
			t.Errorf("code %d:\n got %q\nwant %q", c.e.Code, got, c.want)
		}
	}
}

// The advice names the setting as the engine spells it and the positions to drop by their rates.
func TestAdvice(t *testing.T) {
	a := &schema.PositionAdvice{Configured: 5, Suggested: 3, Commit: 2.48, Kept: 2.40, Cost: 0.03, Dropped: []float64{0.06, 0.02}}
	if got, want := advice(a, "vllm"), "num_speculative_tokens 5 is too high: positions 4-5 accept 6 % and 2 %; 3 would commit 2.40 of the 2.48 tokens per verify step, with 2 fewer draft positions to verify (each costs about 3 % of a step)."; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	long := &schema.PositionAdvice{Configured: 64, Suggested: 4, Commit: 3.75, Kept: 3.6, Cost: 0.03, Dropped: append([]float64{0.1, 0.05}, make([]float64, 58)...)}
	if got := advice(long, "llamacpp"); !strings.Contains(got, "positions 5-64 accept from 10 % down to 0 %") || !strings.Contains(got, "--spec-draft-n-max") {
		t.Errorf("long draft: %q", got)
	}
	if got := rates([]float64{0.4, 0.3, 0.2}); got != "40 %, 30 % and 20 %" {
		t.Errorf("rates %q", got)
	}
}

// Each conclusion has its words; a fall acceptance_drop could not judge says why.
func TestConclusion(t *testing.T) {
	warming := schema.Ev(schema.CodeDropWarming, 40)
	for _, c := range []struct {
		c    schema.Conclusion
		says string
	}{
		{schema.ConcludeNone, ""},
		{schema.ConcludeSteady, ""},
		{schema.ConcludeDegraded, "— degraded."},
		{schema.ConcludeExpected, "expected, not a regression."},
		{schema.ConcludeAnomaly, "the verdict is the anomaly's."},
		{schema.ConcludeUnjudged, "no step-time regression. acceptance_drop is still warming up (it needs 40 more samples): whether commit length fell with the text or with the drafter is unjudged."},
	} {
		var b strings.Builder
		conclusion(&b, &schema.Change{LogRatio: -0.5, Residual: -0.3, Conclusion: c.c, Unarmed: warming}, false)
		if !strings.Contains(b.String(), c.says) || (c.says == "") != (b.Len() == 0) {
			t.Errorf("conclusion %d: %q, want %q", c.c, b.String(), c.says)
		}
	}
}

// The explanation tells the anomalies, the change, the advice and the restarts in that order,
// and a report filled twice is unchanged.
func TestExplain(t *testing.T) {
	start := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	r := schema.Report{Series: []schema.SeriesReport{{
		ContextUnit: "tokens",
		Anomalies:   []schema.AnomalyJSON{{Kind: "commit_len_stuck", Start: start, Evidence: schema.Ev(schema.CodeStuckSamples, 1, 12, 8)}},
		PerPosition: &schema.PerPosition{Advice: &schema.PositionAdvice{Configured: 2, Suggested: 1, Commit: 1.8, Kept: 1.75, Cost: 0.03, Dropped: []float64{0.05}}},
		Diagnosis: &schema.Diagnosis{Kinds: []schema.AnomalyKind{schema.CommitLenStuck}, Window: 30,
			Restarts: 1, LastRestart: start, RestartBy: schema.CodeRestartLogged},
	}}}
	Fill(&r)
	want := "commit_len_stuck since 2026-11-20 09:00:00 (active): commit length 1.00 for 12 consecutive samples with requests running (8): the drafter contributes nothing." +
		" Not enough decode samples for attribution yet (a window is 30 samples)." +
		" the draft length 2 is too high: position 2 accepts 5 %; 1 would commit 1.75 of the 1.80 tokens per verify step, with 1 fewer draft position to verify (each costs about 3 % of a step)." +
		" The engine restarted 1 time, last at 2026-11-20T09:00:00Z (it logged its start-up)."
	if got := r.Series[0].Explanation; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	Fill(&r)
	if got := r.Series[0].Explanation; got != want {
		t.Errorf("filled twice: %q", got)
	}
}

// A series with samples enough and no commit length (TensorRT-LLM's iteration log alone) is told
// why it has no attribution, and what to read for one; with few samples it still waits.
func TestExplainNoAcceptance(t *testing.T) {
	for _, c := range []struct {
		engine  string
		samples int64
		want    string
	}{
		{"trtllm", 500, "Its input states no acceptance (commit length), so throughput is not attributed. TensorRT-LLM's iteration log has none: scrape its /prometheus/metrics, with iteration_stats_url its /metrics, beside the log."},
		{"llamacpp", 500, "Its input states no acceptance (commit length), so throughput is not attributed."},
		{"trtllm", 12, "Not enough decode samples for attribution yet (a window is 30 samples)."},
	} {
		r := schema.Report{Series: []schema.SeriesReport{{Labels: schema.Labels{Engine: c.engine}, Samples: c.samples, ContextUnit: "kv_percent",
			Diagnosis: &schema.Diagnosis{Window: 30}}}}
		Fill(&r)
		if got := r.Series[0].Explanation; got != c.want {
			t.Errorf("%s, %d samples:\n got %q\nwant %q", c.engine, c.samples, got, c.want)
		}
	}
}
