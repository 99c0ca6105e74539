package scrape_test

import (
	"context"
	"fmt"
	"math"
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
	"github.com/specwatch/specwatch/sim/enginelog"
)

// vllmEngine is one vLLM v1 engine whose counters grow as its log lines say: the test writes
// both from the same interval values.
type vllmEngine struct {
	mu                                 sync.Mutex
	drafts, draftTokens, accepted, gen float64
	perPos                             [3]float64
	running, kv                        float64
}

// exposition is the engine's /metrics as vLLM's prometheus_client writes it.
func (e *vllmEngine) exposition() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	l := `engine="0",model_name="Qwen/Qwen3-8B"`
	counter := func(name string, v float64) {
		fmt.Fprintf(&b, "# HELP %s_total x\n# TYPE %s_total counter\n%s_total{%s} %.1f\n", name, name, name, l, v)
		fmt.Fprintf(&b, "# HELP %s_created x\n# TYPE %s_created gauge\n%s_created{%s} 1.7646e+09\n", name, name, name, l)
	}
	fmt.Fprintf(&b, "# HELP vllm:num_requests_running x\n# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{%s} %.1f\n", l, e.running)
	fmt.Fprintf(&b, "# HELP vllm:kv_cache_usage_perc x\n# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{%s} %v\n", l, e.kv)
	counter("vllm:generation_tokens", e.gen)
	counter("vllm:spec_decode_num_drafts", e.drafts)
	counter("vllm:spec_decode_num_draft_tokens", e.draftTokens)
	counter("vllm:spec_decode_num_accepted_tokens", e.accepted)
	n := "vllm:spec_decode_num_accepted_tokens_per_pos"
	fmt.Fprintf(&b, "# HELP %s_total x\n# TYPE %s_total counter\n", n, n)
	for i, v := range e.perPos {
		fmt.Fprintf(&b, "%s_total{%s,position=\"%d\"} %.1f\n", n, l, i, v)
	}
	return b.String()
}

// TestLogsAndMetricsOneSeries: the same vLLM engine watched through its log lines and its
// /metrics at once is one series; its acceptance comes from the counters (commit length the
// counters' own ratio to 0.5 %, per position), its step model from the log lines (one point
// per engine line, none from the scrapes), the report says so, and a restart of the engine is
// an event with its time, not a spike.
func TestLogsAndMetricsOneSeries(t *testing.T) {
	t.Run("logs first", func(t *testing.T) { logsAndMetrics(t, false) })
	t.Run("scrape first", func(t *testing.T) { logsAndMetrics(t, true) })
}

func logsAndMetrics(t *testing.T, scrapeFirst bool) {
	eng := &vllmEngine{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write([]byte(eng.exposition()))
	}))
	defer srv.Close()

	st := pipeline.NewState(pipeline.StateOptions{Model: model.Options{}})
	pl := pipeline.New(st, pipeline.Options{Year: 2026})
	logsOnly := pipeline.NewState(pipeline.StateOptions{Model: model.Options{}}) // the same lines, no scrape
	plLogs := pipeline.New(logsOnly, pipeline.Options{Year: 2026})
	clk := &stepClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	src, err := scrape.New(scrape.Options{
		Targets: []scrape.Target{{URL: srv.URL + "/metrics", Interval: 5 * time.Second, Timeout: time.Second,
			Labels: map[string]string{"host": "gpu01", "unit": "vllm.service"}}},
		Sink: pl, Clock: clk,
	})
	if err != nil {
		t.Fatal(err)
	}
	w := enginelog.Writer{Engine: enginelog.VLLM, Style: enginelog.VLLMSpecGen3, Prefix: enginelog.PrefixEngine,
		Rank: "Engine 000", PID: 4242, KVTokens: 200000, DraftLen: 3}
	rates := [3]float64{0.75, 0.5, 0.3}
	const n, restartAt = 60, 40
	var ratio float64 // Σ of the counters' commit length per interval
	var intervals int
	var line []byte
	var restartTime time.Time
	for i := range n {
		now := clk.t
		drafts := 400.0 + float64(i%9)*11
		var rec enginelog.Record
		rec.Drafts, rec.Drafted, rec.Interval = int64(drafts), int64(3*drafts), 5
		for p, r := range rates {
			rec.Pos[p] = int32(math.Round(drafts * r * (1 + 0.02*float64(i%3))))
			rec.Accepted += int64(rec.Pos[p])
		}
		rec.Commit = 1 + float64(rec.Accepted)/drafts
		rec.Running, rec.Ctx = 8, 20000+i*1500
		step := 0.030 + 0.4e-6*float64(rec.Ctx)
		rec.TPS = rec.Commit * float64(rec.Running) / step

		eng.mu.Lock()
		if i == restartAt { // the engine restarts: its counters start again
			eng.drafts, eng.draftTokens, eng.accepted, eng.gen, eng.perPos = 0, 0, 0, 0, [3]float64{}
			restartTime = now
		} else if i > 0 {
			ratio += rec.Commit
			intervals++
		}
		eng.drafts += drafts
		eng.draftTokens += 3 * drafts
		eng.accepted += float64(rec.Accepted)
		eng.gen += rec.Commit * drafts
		for p := range rates {
			eng.perPos[p] += float64(rec.Pos[p])
		}
		eng.running, eng.kv = 8, float64(rec.Ctx)/200000
		eng.mu.Unlock()

		if scrapeFirst {
			if err := src.Scrape(context.Background(), 0); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range []enginelog.LineKind{enginelog.LineStats, enginelog.LineSpec} {
			rec.Kind = k
			line = w.AppendLine(line[:0], now, &rec)
			e := ingest.Entry{Time: now.UnixMicro(), Host: []byte("gpu01"), Unit: []byte("vllm.service"), Message: line}
			pl.Apply(&e)
			plLogs.Apply(&e)
		}
		if !scrapeFirst {
			if err := src.Scrape(context.Background(), 0); err != nil {
				t.Fatal(err)
			}
		}
		clk.t = clk.t.Add(5 * time.Second)
	}

	rep := st.Report()
	if len(rep.Series) != 1 {
		for _, s := range rep.Series {
			t.Logf("series %+v: %d samples", s.Labels, s.Samples)
		}
		t.Fatalf("%d series, want the one engine rank", len(rep.Series))
	}
	s := rep.Series[0]
	if s.Labels != (model.Labels{Host: "gpu01", Unit: "vllm.service", Engine: "vllm", Rank: "Engine 000"}) {
		t.Errorf("labels %+v", s.Labels)
	}
	want := model.Sources{Inputs: []string{"logs", "metrics"}, CommitLen: "metrics", PerPosition: "metrics", Step: "logs"}
	if s.Sources == nil || fmt.Sprint(*s.Sources) != fmt.Sprint(want) {
		t.Errorf("sources %+v, want %+v", s.Sources, want)
	}
	if s.CommitLen == nil {
		t.Fatal("no commit length")
	}
	// The counters' intervals: every one but the first and the restart's.
	if intervals != n-2 {
		t.Fatalf("%d intervals", intervals)
	}
	if w := ratio / float64(intervals); math.Abs(s.CommitLen.Mean-w) > 0.005*w {
		t.Errorf("commit length %v, the counters' ratio %v", s.CommitLen.Mean, w)
	}
	lo := logsOnly.Report().Series[0]
	if s.StepModel == nil || lo.StepModel == nil || *s.StepModel != *lo.StepModel || s.StepModel.N < n-5 {
		t.Errorf("step model %+v, from the logs alone %+v: want the same, one point per engine line (%d), none from the scrapes", s.StepModel, lo.StepModel, n)
	} else if math.Abs(s.StepModel.RefFixedMS-30) > 0.5 || math.Abs(s.StepModel.RefMSPerKVPercent-0.8) > 0.01 {
		t.Errorf("reference fit %v ms + %v ms per 1 %% KV, want 30 + 0.8", s.StepModel.RefFixedMS, s.StepModel.RefMSPerKVPercent)
	}
	if lo.Sources != nil {
		t.Errorf("a series of logs alone reports sources %+v", lo.Sources)
	}
	if s.PerPosition == nil || len(s.PerPosition.Acceptance) != 3 {
		t.Fatalf("per position %+v", s.PerPosition)
	}
	for p, r := range rates {
		if a := s.PerPosition.Acceptance[p]; math.Abs(a-r*1.02) > 0.02*r {
			t.Errorf("position %d accepts %v, want about %v", p+1, a, r*1.02)
		}
	}
	if s.PerPosition.Advice != nil {
		t.Errorf("advice for a draft that pays: %+v", s.PerPosition.Advice)
	}
	if len(s.Events) != 1 || s.Events[0].Kind != "restart" || !s.Events[0].Time.Equal(restartTime) {
		t.Errorf("events %+v, want one restart at %v", s.Events, restartTime)
	}
	if d := s.Diagnosis; d == nil || d.Restarts != 1 || d.RestartBy != schema.CodeRestartCounters {
		t.Errorf("the diagnosis does not state one restart of the counters: %+v", d)
	}
	if s.CommitLen.P90 > 1+1.02*(0.75+0.5+0.3)+0.05 || s.CommitLen.P10 < 2 {
		t.Errorf("commit length p10 %v p90 %v: a restart must not make a spike", s.CommitLen.P10, s.CommitLen.P90)
	}
}
