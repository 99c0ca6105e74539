package scrape_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest/scrape"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
	"github.com/specwatch/specwatch/sim/enginemetrics"
)

// TestSGLangSeqLensFeedTheFit: an SGLang server watched through /metrics alone gets its step
// model from decode_sum_seq_lens (the decode batch's context) and the interval-mean gauges:
// step = accept length × running / gen_throughput, fitted against the summed sequence lengths.
// The drafter's engine_type="draft" series beside them is no second series.
func TestSGLangSeqLensFeedTheFit(t *testing.T) {
	const a, b = 0.020, 3e-7 // s, s per token of the batch's context
	srv, serve := bodyServer(t)
	st := pipeline.NewState(pipeline.StateOptions{Model: model.Options{}})
	clk := &stepClock{t: time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)}
	src, err := scrape.New(scrape.Options{Sink: pipeline.New(st, pipeline.Options{}), Clock: clk, LocalHost: "gpu04",
		Targets: []scrape.Target{{URL: srv.URL, Interval: 10 * time.Second, Timeout: time.Second, Labels: map[string]string{"unit": "sglang.service"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var verify, gen float64
	for i := range 120 {
		running := float64(4 + i%9)
		ctx := running * float64(1500+(i*7919)%30000) // a batch's summed sequence lengths
		acc := 3.0 + 0.2*math.Sin(float64(i))
		step := a + b*ctx
		verify += 10 / step * running // each request counts its own verify steps
		gen += 10 / step * acc * running
		serve(enginemetrics.SGLang{SumSeqLens: ctx, Running: running, GenTPS: acc * running / step, AccLen: acc, AccRate: (acc - 1) / 4,
			Steps: 3, DraftToks: 4, Verify: verify, GenTokens: gen, Drafter: true}.Exposition())
		if err := src.Scrape(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		clk.t = clk.t.Add(10 * time.Second)
	}
	rep := st.Report()
	if len(rep.Series) != 1 {
		t.Fatalf("%d series, want the one server (its drafter's series is no engine)", len(rep.Series))
	}
	s := rep.Series[0]
	m := s.StepModel
	if m == nil || s.ContextUnit != "tokens" {
		t.Fatalf("no step model from the gauges (context unit %q): %+v", s.ContextUnit, s)
	}
	if math.Abs(m.FixedMS/1000/a-1) > 0.03 || math.Abs(m.MSPer1kToken/1e6/b-1) > 0.03 {
		t.Errorf("fit %.3f ms + %.4f ms per 1k tokens, want %.3f + %.4f", m.FixedMS, m.MSPer1kToken, a*1000, b*1e6)
	}
	t.Logf("fit %.3f ms + %.4f ms per 1k tokens (truth %.3f + %.4f), R² %.4f, %d points", m.FixedMS, m.MSPer1kToken, a*1000, b*1e6, m.R2, m.N)
}
