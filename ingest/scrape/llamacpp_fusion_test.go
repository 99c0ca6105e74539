package scrape_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest/scrape"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
	"github.com/specwatch/specwatch/sample"
)

// llamaReq is one request of testdata/llamacpp's draft recording, as its response states it:
// prompt tokens, tokens generated, decode ms, drafted and accepted, requests beside it.
type llamaReq struct {
	prompt, g, ms, drafted, accepted, running float64
	end                                       time.Duration // after the first scrape
}

// sample is the request as the parser's join of its log lines states it (parse.EventRequest):
// steps = G − 1 − accepted, commit = (G − 1) / steps, tok/s = G / decode time.
func (r llamaReq) sample(t0 time.Time) sample.Sample {
	s := sample.Sample{Kind: sample.KindDecode, Engine: sample.EngineLlamaCpp, Event: sample.EventRequest, Source: sample.SourceLog,
		Host: []byte("gpu07"), Unit: []byte("llama-server.service"), Time: t0.Add(r.end).UnixNano()}
	steps := r.g - 1 - r.accepted
	s.Set(sample.Commit, (r.g-1)/steps)
	s.Set(sample.Steps, steps)
	s.Set(sample.StepSeconds, r.ms/1000/steps)
	s.Set(sample.GenTPS, r.g/(r.ms/1000))
	s.Set(sample.Context, r.prompt+(r.g-1)/2)
	s.Set(sample.Accepted, r.accepted)
	s.Set(sample.Drafted, r.drafted)
	s.Set(sample.Running, r.running)
	return s
}

// The recording's requests (testdata/llamacpp/README), ending between its scrapes 10 s apart.
var llamaRun = []llamaReq{
	{522, 96, 825.688, 271, 59, 1, -time.Second},
	{1748, 300, 4797.384, 879, 187, 1, 14 * time.Second},
	{238, 64, 380.381, 169, 40, 1, 33 * time.Second}, {761, 96, 819.169, 267, 60, 1, 35 * time.Second},
	{300, 64, 1246.908, 176, 40, 3, 43 * time.Second}, {542, 64, 1246.039, 171, 40, 3, 43 * time.Second},
	{164, 64, 1060.233, 171, 40, 3, 43 * time.Second},
	{408, 80, 533.953, 223, 49, 1, 65 * time.Second}, // after the restart at 55 s
}

var llamaScrapes = []string{"draft-1-one-request", "draft-2-mid-request", "draft-3-request-done", "draft-4-idle",
	"draft-5-two-requests", "draft-6-three-parallel", "draft-7-restarted", "draft-8-after-restart"}

// TestLlamaCppLogsAndMetricsOneSeries: one llama-server read through its journal unit and
// scraped on loopback (the target labelled with the unit, its host the machine's, as `run`
// names it) is one series: commit length, step and context, and tok/s from each request's log
// lines; acceptance per position from the counters; the restart both saw is one event. Its
// tok/s is the requests' own (what they ran at, by the engine's clock), where the counters
// over wall time between scrapes would say a third of it; its commit length is per request,
// where 1 + accepted / drafts would say more. Whether the logs come first or lag behind the
// scrapes, the figures are the same as the logs' alone.
func TestLlamaCppLogsAndMetricsOneSeries(t *testing.T) {
	logsOnly := llamaSeries(t, false, false)
	if logsOnly.Sources != nil {
		t.Errorf("logs alone: sources %+v", logsOnly.Sources)
	}
	for _, late := range []bool{false, true} {
		t.Run(fmt.Sprintf("logs late %v", late), func(t *testing.T) {
			s := llamaSeries(t, true, late)
			want := model.Sources{Inputs: []string{"logs", "metrics"}, CommitLen: "logs", PerPosition: "metrics", Step: "logs"}
			if s.Sources == nil || fmt.Sprint(*s.Sources) != fmt.Sprint(want) {
				t.Errorf("sources %+v, want %+v", s.Sources, want)
			}
			var truth float64 // the mean of the requests' own tok/s
			for _, r := range llamaRun {
				truth += r.g / (r.ms / 1000)
			}
			truth /= float64(len(llamaRun))
			if s.TPS == nil || math.Abs(s.TPS.MeasuredMean-truth) > 0.01 || *s.TPS != *logsOnly.TPS {
				t.Errorf("tok/s %+v, want the requests' own %.2f, as the logs alone say (%+v)", s.TPS, truth, logsOnly.TPS)
			}
			if s.CommitLen == nil || s.CommitLen.Mean != logsOnly.CommitLen.Mean || s.CommitLen.PooledMean != logsOnly.CommitLen.PooledMean {
				t.Errorf("commit length %+v, the logs alone %+v", s.CommitLen, logsOnly.CommitLen)
			}
			if s.PerPosition == nil || len(s.PerPosition.Acceptance) != 8 || s.PerPosition.Acceptance[0] < 0.5 {
				t.Errorf("per position %+v, want the counters' 8 positions", s.PerPosition)
			}
			if len(s.Events) != 1 || s.Events[0].Kind != "restart" {
				t.Errorf("events %+v, want the one restart", s.Events)
			}
		})
	}
}

// llamaSeries replays the recording into a model, the requests' log samples with or without
// the scrapes (the logs late: each applied after the scrape that follows it), and returns
// its one llama.cpp series.
func llamaSeries(t *testing.T, scrapes, late bool) model.SeriesReport {
	t.Helper()
	srv, serve := bodyServer(t)
	st := pipeline.NewState(pipeline.StateOptions{Model: model.Options{}})
	pl := pipeline.New(st, pipeline.Options{})
	t0 := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	clk := &stepClock{t: t0}
	src, err := scrape.New(scrape.Options{Sink: pl, Clock: clk, LocalHost: "gpu07",
		Targets: []scrape.Target{{URL: srv.URL + "/metrics", Interval: 10 * time.Second, Timeout: time.Second,
			Labels: map[string]string{"unit": "llama-server.service"}}}})
	if err != nil {
		t.Fatal(err)
	}
	restart := sample.Sample{Kind: sample.KindEvent, Event: sample.EventRestart, Engine: sample.EngineLlamaCpp, Source: sample.SourceLog,
		Host: []byte("gpu07"), Unit: []byte("llama-server.service"), Time: t0.Add(55 * time.Second).UnixNano()}
	var pending []sample.Sample
	logs := func(until time.Time) {
		for _, r := range llamaRun {
			if s := r.sample(t0); s.Time > until.Add(-10*time.Second).UnixNano() && s.Time <= until.UnixNano() {
				pending = append(pending, s)
			}
		}
		if restart.Time > until.Add(-10*time.Second).UnixNano() && restart.Time <= until.UnixNano() {
			pending = append(pending, restart)
		}
	}
	flush := func() {
		for i := range pending {
			pl.ApplySample(sample.Matched, &pending[i])
		}
		pending = pending[:0]
	}
	for i, name := range llamaScrapes {
		logs(clk.t)
		if !late {
			flush()
		}
		if scrapes {
			b, err := os.ReadFile(filepath.Join("testdata", "llamacpp", name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			serve(b)
			if err := src.Scrape(context.Background(), 0); err != nil {
				t.Fatal(err)
			}
		}
		if late || i == len(llamaScrapes)-1 {
			flush()
		}
		clk.t = clk.t.Add(10 * time.Second)
	}
	var found []model.SeriesReport
	for _, s := range st.Report().Series {
		if s.Labels.Engine == "llamacpp" {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		for _, s := range found {
			t.Logf("series %+v: %d samples, sources %+v", s.Labels, s.Samples, s.Sources)
		}
		t.Fatalf("%d llama.cpp series, want one", len(found))
	}
	if l := found[0].Labels; l.Host != "gpu07" || l.Unit != "llama-server.service" || l.Rank != "" {
		t.Errorf("labels %+v", l)
	}
	return found[0]
}

// bodyServer is an engine's /metrics on loopback serving the body last handed to serve.
func bodyServer(t *testing.T) (*httptest.Server, func([]byte)) {
	var mu sync.Mutex
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, func(b []byte) {
		mu.Lock()
		body = b
		mu.Unlock()
	}
}
