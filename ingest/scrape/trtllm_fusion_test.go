package scrape_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/scrape"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
	"github.com/specwatch/specwatch/sim"
	"github.com/specwatch/specwatch/sim/enginemetrics"
)

// TestTRTLLMLogsAndMetricsOneSeries: a two-rank TensorRT-LLM server whose iteration log
// (TLLM_PROFILE_LOG_RANKS=all) is read from its journal and whose two endpoints are scraped
// every 10 s is one series per rank: the step model from the log's iterations (KV cache in
// use as the context, as the line states no tokens), commit length from the iteration
// statistics' counters, within 0.5 % of the counters' own ratio.
func TestTRTLLMLogsAndMetricsOneSeries(t *testing.T) {
	start := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	sc := sim.Scenario{Seed: 11, Start: start, Duration: 5 * time.Minute, Format: sim.FormatJSON,
		Services: []sim.Service{{Engine: sim.TRTLLM, Host: "gpu03", Unit: "trtllm-serve.service", Ranks: []string{"", "1"},
			Step: sim.StepModel{A: 0.012, B: 4e-7}, Acceptance: sim.Acceptance{DraftLen: 3},
			Workload: sim.Workload{Concurrency: 6, ArrivalMean: time.Second, PromptMin: 500, PromptMax: 8000, OutputMin: 200, OutputMax: 1500}}}}
	var logs bytes.Buffer
	if _, err := sim.Generate(sc, &logs, nil); err != nil {
		t.Fatal(err)
	}
	eng := &enginemetrics.TRTLLM{Ranks: 2, MaxDraft: 3}
	srv := httptest.NewServer(eng)
	defer srv.Close()
	st := pipeline.NewState(pipeline.StateOptions{Model: model.Options{}})
	pl := pipeline.New(st, pipeline.Options{Year: 2026})
	clk := &stepClock{t: start}
	src, err := scrape.New(scrape.Options{Sink: pl, Clock: clk, LocalHost: "gpu03",
		Targets: []scrape.Target{{URL: srv.URL + "/prometheus/metrics", IterStatsURL: srv.URL + "/metrics",
			Interval: 10 * time.Second, Timeout: 5 * time.Second, Labels: map[string]string{"unit": "trtllm-serve.service"}}}})
	if err != nil {
		t.Fatal(err)
	}
	scrapes := 0
	scrapeUntil := func(t0 time.Time) {
		for !clk.t.Add(10 * time.Second).After(t0) {
			clk.t = clk.t.Add(10 * time.Second)
			eng.Advance(40)
			if err := src.Scrape(context.Background(), 0); err != nil {
				t.Fatal(err)
			}
			scrapes++
		}
	}
	rd := ingest.NewReader(&logs, ingest.ReaderOptions{})
	var e ingest.Entry
	for {
		err := rd.Next(&e)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		scrapeUntil(time.UnixMicro(e.Time))
		pl.Apply(&e)
	}
	pl.EndInput()
	rep := st.Report()
	if len(rep.Series) != 2 || rep.Input.Malformed != 0 {
		t.Fatalf("%d series (want the two ranks), %d malformed lines", len(rep.Series), rep.Input.Malformed)
	}
	for _, s := range rep.Series {
		l := s.Labels
		r := map[string]int{"": 0, "1": 1}[l.Rank]
		if l.Engine != "trtllm" || l.Host != "gpu03" || l.Unit != "trtllm-serve.service" || l.Rank != []string{"", "1"}[r] {
			t.Fatalf("series %+v, want ranks \"\" and \"1\" of the one server", l)
		}
		if s.Sources == nil || s.Sources.CommitLen != "metrics" || s.Sources.Step != "logs" || len(s.Sources.Inputs) != 2 {
			t.Errorf("rank %q: sources %+v, want the log's steps and the counters' commit length", l.Rank, s.Sources)
		}
		_, delivered, _ := eng.Truth(r)
		ratio := (delivered.Accepted + delivered.Requests) / delivered.Requests
		if s.CommitLen == nil || math.Abs(s.CommitLen.Mean/ratio-1) > 0.005 {
			t.Errorf("rank %q: commit length %+v, the counters' ratio %.4f", l.Rank, s.CommitLen, ratio)
		}
		if s.StepModel == nil || s.ContextUnit != "kv_percent" || s.StepModel.FixedMS <= 0 {
			t.Errorf("rank %q: step model %+v, context unit %q", l.Rank, s.StepModel, s.ContextUnit)
		}
		if s.TPS == nil || !(s.TPS.MeasuredMean > 0) {
			t.Errorf("rank %q: tok/s %+v, want the iterations' with the counters' commit length", l.Rank, s.TPS)
		}
		t.Logf("rank %q: %d samples, commit %.4f (counters %.4f), fit %+v, tok/s %+v", l.Rank, s.Samples, s.CommitLen.Mean, ratio, *s.StepModel, *s.TPS)
	}
	if scrapes < 25 {
		t.Errorf("%d scrapes over 5 minutes", scrapes)
	}
}
