package exporter_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/specwatch/specwatch/exporter/exportertest"
	"github.com/specwatch/specwatch/ingest/scrape"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
)

// stepClock is a clock the test moves; tickers are never used (the test calls Scrape).
type stepClock struct{ t time.Time }

func (c *stepClock) Now() time.Time                                     { return c.t }
func (c *stepClock) NewTicker(time.Duration) (<-chan time.Time, func()) { return nil, func() {} }

// TestCommitCountersRatioIsTheCountersMean: a vLLM engine with two ranks whose drafts per
// interval and acceptance vary (one interval accepts nothing) is scraped through the pipeline;
// /metrics has specwatch_committed_tokens_total and specwatch_verify_steps_total per series,
// with the series labels, and the ratio of their increases over a range is the engine's own
// mean commit length over it, (Δdrafts + Δaccepted) / Δdrafts, where the commit length gauge
// and the mean of the samples are not.
func TestCommitCountersRatioIsTheCountersMean(t *testing.T) {
	var mu sync.Mutex
	var drafts, accepted [2]float64
	const k = 4 // draft tokens per draft
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		for _, c := range []struct {
			name string
			v    *[2]float64
			k    float64
		}{{"vllm:spec_decode_num_drafts", &drafts, 1}, {"vllm:spec_decode_num_draft_tokens", &drafts, k}, {"vllm:spec_decode_num_accepted_tokens", &accepted, 1}} {
			fmt.Fprintf(w, "# HELP %s_total x\n# TYPE %s_total counter\n", c.name, c.name)
			for e := range 2 {
				fmt.Fprintf(w, "%s_total{engine=\"%d\",model_name=\"m\"} %.1f\n", c.name, e, c.v[e]*c.k)
			}
		}
		// one position list per rank, as vLLM exports it: its length is the draft length
		fmt.Fprintf(w, "# HELP vllm:spec_decode_num_accepted_tokens_per_pos_total x\n# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter\n")
		for e := range 2 {
			for p := range k {
				fmt.Fprintf(w, "vllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"%d\",model_name=\"m\",position=\"%d\"} %.1f\n",
					e, p, math.Floor(accepted[e]*[k]float64{0.4, 0.3, 0.2, 0.1}[p]))
			}
		}
	}))
	defer srv.Close()
	st := pipeline.NewState(pipeline.StateOptions{Model: model.Options{}})
	m := exportertest.NewMetrics(t, st)
	clk := &stepClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	src, err := scrape.New(scrape.Options{
		Targets: []scrape.Target{{URL: srv.URL, Interval: 5 * time.Second, Timeout: time.Second, Labels: map[string]string{"unit": "vllm.service", "host": "gpu05"}}},
		Sink:    pipeline.New(st, pipeline.Options{}), Clock: clk,
	})
	if err != nil {
		t.Fatal(err)
	}
	type at struct{ drafts, accepted [2]float64 }
	var marks []at
	var gathered []map[string][2]float64 // by rank: tokens, steps
	var sampleMean [2]float64            // unweighted mean of the intervals' commit lengths
	for i := range 41 {
		if i > 0 {
			mu.Lock()
			for e := range 2 {
				d := 200.0 + float64(i%7)*130 // drafts vary, so that the weights matter
				a := d * (0.6 + 0.9*float64(e) + 0.3*float64(i%3))
				if i == 17 {
					a = 0 // the drafter contributes nothing: commit length 1
				}
				drafts[e] += d
				accepted[e] += a
				if i > 10 {
					sampleMean[e] += (1 + a/d) / 30
				}
			}
			mu.Unlock()
		}
		if err := src.Scrape(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		clk.t = clk.t.Add(5 * time.Second)
		if i == 10 || i == 40 {
			marks = append(marks, at{drafts, accepted})
			gathered = append(gathered, commitCounters(t, m.Registry().Gather))
		}
	}
	for e, rank := range []string{"Engine 000", "Engine 001"} {
		a, b := gathered[0][rank], gathered[1][rank]
		if a[1] <= 0 || b[1] <= a[1] {
			t.Fatalf("%s: verify steps %v then %v, want an increase", rank, a[1], b[1])
		}
		got := (b[0] - a[0]) / (b[1] - a[1])
		dd := marks[1].drafts[e] - marks[0].drafts[e]
		want := (dd + marks[1].accepted[e] - marks[0].accepted[e]) / dd
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: rate(committed) / rate(steps) = %.12f, the counters' mean commit length %.12f", rank, got, want)
		}
		if math.Abs(sampleMean[e]-want) < 1e-3 {
			t.Fatalf("%s: the fixture's unweighted mean %v equals the weighted one: the test proves nothing", rank, sampleMean[e])
		}
		if math.Abs(b[1]-a[1]-dd) > 1e-9*dd {
			t.Errorf("%s: verify steps rose by %v, the engine drafted %v times", rank, b[1]-a[1], dd)
		}
	}
}

// commitCounters gathers the two commit counters by rank, checking that each carries the
// series labels of the other per-series metrics.
func commitCounters(t *testing.T, gather func() ([]*dto.MetricFamily, error)) map[string][2]float64 {
	t.Helper()
	fams, err := gather()
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{} // rank → label names of specwatch_samples_total, less kind
	out := map[string][2]float64{}
	names := func(m *dto.Metric, skip string) (rank, all string) {
		for _, l := range m.GetLabel() {
			if l.GetName() == "rank" {
				rank = l.GetValue()
			}
			if l.GetName() != skip {
				all += l.GetName() + "=" + l.GetValue() + ","
			}
		}
		return rank, all
	}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			if f.GetName() == "specwatch_samples_total" {
				r, all := names(m, "kind")
				labels[r] = all
			}
		}
	}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			switch f.GetName() {
			case "specwatch_committed_tokens_total", "specwatch_verify_steps_total":
				if f.GetType() != dto.MetricType_COUNTER {
					t.Errorf("%s is a %v", f.GetName(), f.GetType())
				}
				r, all := names(m, "")
				if want := labels[r]; all != want {
					t.Errorf("%s labels %s, the series' %s", f.GetName(), all, want)
				}
				v := out[r]
				if f.GetName() == "specwatch_committed_tokens_total" {
					v[0] = m.GetCounter().GetValue()
				} else {
					v[1] = m.GetCounter().GetValue()
				}
				out[r] = v
			}
		}
	}
	if len(out) != 2 {
		t.Fatalf("commit counters for %d series, want 2: %v", len(out), out)
	}
	return out
}
