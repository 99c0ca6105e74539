package scrape_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest/scrape"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
)

// stepClock is a clock the test moves; tickers are never used (the test calls Scrape).
type stepClock struct{ t time.Time }

func (c *stepClock) Now() time.Time                                     { return c.t }
func (c *stepClock) NewTicker(time.Duration) (<-chan time.Time, func()) { return nil, func() {} }

// TestThroughThePipeline: scrapes of a vLLM engine whose acceptance changes reach the model
// through pipeline.Pipeline.ApplySample as one series per rank, and the report's commit length
// is the counters' own ratio to 0.5 %.
func TestThroughThePipeline(t *testing.T) {
	var mu sync.Mutex
	var drafts, accepted [2]float64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		for _, c := range []struct {
			name string
			v    *[2]float64
			k    float64
		}{{"vllm:spec_decode_num_drafts", &drafts, 1}, {"vllm:spec_decode_num_draft_tokens", &drafts, 3}, {"vllm:spec_decode_num_accepted_tokens", &accepted, 1}} {
			fmt.Fprintf(w, "# HELP %s_total x\n# TYPE %s_total counter\n", c.name, c.name)
			for e := range 2 {
				fmt.Fprintf(w, "%s_total{engine=\"%d\",model_name=\"m\"} %.1f\n", c.name, e, c.v[e]*c.k)
			}
		}
	}))
	defer srv.Close()
	st := pipeline.NewState(pipeline.StateOptions{Model: model.Options{}})
	clk := &stepClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	src, err := scrape.New(scrape.Options{
		Targets: []scrape.Target{{URL: srv.URL, Interval: 5 * time.Second, Timeout: time.Second, Labels: map[string]string{"unit": "vllm.service"}}},
		Sink:    pipeline.New(st, pipeline.Options{}), Clock: clk,
	})
	if err != nil {
		t.Fatal(err)
	}
	var sum [2]float64
	for i := range 41 {
		if i > 0 {
			mu.Lock()
			for e := range 2 {
				d := 500.0 + float64(i%7)*13
				a := d * (1.2 + 0.8*float64(e) + 0.01*float64(i%5)) // engine 1 accepts more
				drafts[e] += d
				accepted[e] += a
				sum[e] += 1 + a/d
			}
			mu.Unlock()
		}
		if err := src.Scrape(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		clk.t = clk.t.Add(5 * time.Second)
	}
	rep := st.Report()
	if len(rep.Series) != 2 {
		t.Fatalf("%d series, want one per engine rank", len(rep.Series))
	}
	for _, s := range rep.Series {
		e := 0
		if s.Labels.Rank == "Engine 001" {
			e = 1
		}
		if s.Labels.Engine != "vllm" || s.Labels.Unit != "vllm.service" || s.Labels.Host != "127.0.0.1" || s.CommitLen == nil {
			t.Fatalf("series %+v", s.Labels)
		}
		want := sum[e] / 40
		if got := s.CommitLen.Mean; math.Abs(got-want) > 0.005*want {
			t.Errorf("%s: mean commit length %v, the counters' ratio %v", s.Labels.Rank, got, want)
		}
	}
}
