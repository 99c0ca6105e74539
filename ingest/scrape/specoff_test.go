package scrape_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/scrape"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/pipeline"
)

// trtllmGate is a TensorRT-LLM server whose SpeculationGate turns speculation off for good
// (tensorrt_llm/_torch/speculative/speculation_gate.py): its draft and accepted counters stop,
// its generation counter goes on at one token per request per iteration, at the same batch.
type trtllmGate struct {
	mu                     sync.Mutex
	draft, accepted, gen   float64
	accLen, running, queue float64
}

func (e *trtllmGate) exposition() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	l := `engine_type="trtllm",model_name="nvidia/Llama-3.1-8B-Instruct-FP8"`
	var b strings.Builder
	for _, c := range []struct {
		name string
		v    float64
	}{{"trtllm_spec_decode_num_draft_tokens", e.draft}, {"trtllm_spec_decode_num_accepted_tokens", e.accepted}, {"trtllm_generation_tokens", e.gen}} {
		fmt.Fprintf(&b, "# HELP %s_total x\n# TYPE %s_total counter\n%s_total{%s} %.1f\n", c.name, c.name, c.name, l, c.v)
	}
	for _, g := range []struct {
		name string
		v    float64
	}{{"trtllm_spec_decode_acceptance_length", e.accLen}, {"trtllm_num_requests_running", e.running}, {"trtllm_num_requests_waiting", e.queue}} {
		fmt.Fprintf(&b, "# HELP %s x\n# TYPE %s gauge\n%s{%s} %v\n", g.name, g.name, g.name, l, g.v)
	}
	return b.String()
}

// TestTRTLLMGateDisablesSpeculation: TensorRT-LLM's acceptance_rate_threshold turns
// speculation off for good at an unchanged batch of 4. Its /metrics then show tokens without
// drafts (and an acceptance length of 1), its log the gate's line. That is
// speculation_disabled with the gate's figures as the cause, not a stuck drafter, and the
// steps without drafts stay out of the commit length.
func TestTRTLLMGateDisablesSpeculation(t *testing.T) {
	eng := &trtllmGate{running: 4}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write([]byte(eng.exposition()))
	}))
	defer srv.Close()
	st := pipeline.NewState(pipeline.StateOptions{Model: model.Options{}})
	pl := pipeline.New(st, pipeline.Options{Year: 2026})
	clk := &stepClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	src, err := scrape.New(scrape.Options{Sink: pl, Clock: clk,
		Targets: []scrape.Target{{URL: srv.URL + "/metrics", Interval: 10 * time.Second, Timeout: time.Second,
			Labels: map[string]string{"host": "gpu03", "unit": "trtllm.service"}}}})
	if err != nil {
		t.Fatal(err)
	}
	const off = 180 // 30 min speculating, then 30 min without drafts
	for i := range 360 {
		eng.mu.Lock()
		iters := 400.0 // per 10 s interval, each for the 4 requests
		if i < off {
			eng.draft += iters * 4 * 3
			eng.accepted += iters * 4 * 1.5
			eng.gen += iters * 4 * 2.5
			eng.accLen = 2.5
		} else {
			eng.gen += iters * 4
			eng.accLen = 1
		}
		eng.mu.Unlock()
		if i == off {
			line := []byte("[12/01/2026-12:30:00] [TRT-LLM] [I] [SpeculationGate] Speculative decoding disabled: rolling acceptance avg 0.312 < threshold 0.5 over last 32 requests")
			e := ingest.Entry{Time: clk.t.UnixMicro(), Host: []byte("gpu03"), Unit: []byte("trtllm.service"), Message: line}
			pl.Apply(&e)
		}
		if err := src.Scrape(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		clk.t = clk.t.Add(10 * time.Second)
	}
	rep := st.Report()
	if len(rep.Series) != 1 {
		t.Fatalf("%d series, want the one server: %+v", len(rep.Series), rep.Series)
	}
	s := rep.Series[0]
	var disabled *model.AnomalyJSON
	for i, a := range s.Anomalies {
		switch a.Kind {
		case "speculation_disabled":
			disabled = &s.Anomalies[i]
		case "commit_len_stuck", "acceptance_drop":
			t.Errorf("%s raised for speculation the engine switched off: %+v", a.Kind, a.Evidence)
		}
	}
	if disabled == nil {
		t.Fatalf("no speculation_disabled: %+v", s.Anomalies)
	}
	if e := disabled.Evidence; disabled.Severity != "warning" || e.Code != schema.CodeSpecOff || e.N[2] != schema.SpecCauseGate || e.N[4] != 0.5 {
		t.Errorf("speculation_disabled %+v: want a warning naming the gate and its threshold", *disabled)
	}
	if at := disabled.Start.Sub(time.Date(2026, 12, 1, 12, 30, 0, 0, time.UTC)); at < 10*time.Minute || at > 11*time.Minute {
		t.Errorf("raised %v after the gate, want model.DefaultSpecOffAfter (10 min)", at)
	}
	if s.CommitLen == nil || s.CommitLen.P10 < 2 {
		t.Errorf("commit length %+v: steps without drafts must stay out of it", s.CommitLen)
	}
	if s.NotSpeculating < off-5 {
		t.Errorf("%d samples without drafts, want about %d", s.NotSpeculating, 360-off)
	}
	if s.Verdict != "degraded" {
		t.Errorf("verdict %q, want degraded", s.Verdict)
	}
}
