package discover

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/specwatch/specwatch/ingest/scrape"
	"github.com/specwatch/specwatch/sample"
)

type nopSink struct{}

func (nopSink) ApplySample(sample.Result, *sample.Sample) {}

// lister answers from a script, one entry per call, and says when it was called.
type lister struct {
	script [][]scrape.Target
	fail   map[int]bool
	calls  chan int
	n      int
}

func (l *lister) Targets(context.Context) ([]scrape.Target, []error, error) {
	i := l.n
	l.n++
	defer func() { l.calls <- i }()
	if l.fail[i] {
		return nil, nil, errors.New("API server unreachable")
	}
	return l.script[min(i, len(l.script)-1)], nil, nil
}

// engine is a loopback /metrics that reports each request.
func engine(t *testing.T) (*httptest.Server, chan struct{}) {
	hit := make(chan struct{}, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("# TYPE vllm:spec_decode_num_drafts counter\nvllm:spec_decode_num_drafts_total{engine=\"0\",model_name=\"m\"} 1\n"))
		hit <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	return srv, hit
}

func wait[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// TestRunFollowsTheList: a listed target is scraped, a target that leaves the list stops being
// scraped and leaves the scrape metrics, and a failed list keeps what runs.
func TestRunFollowsTheList(t *testing.T) {
	a, hitA := engine(t)
	b, hitB := engine(t)
	target := func(u string) scrape.Target {
		return scrape.Target{URL: u + "/metrics", Interval: time.Hour, Timeout: 5 * time.Second, Labels: map[string]string{"pod": "p"}}
	}
	l := &lister{script: [][]scrape.Target{{target(a.URL)}, {target(b.URL)}, {target(b.URL)}}, fail: map[int]bool{2: true}, calls: make(chan int, 8)}
	reg := prometheus.NewRegistry()
	tick := make(chan time.Time)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, Options{Lister: l, Tick: tick, Source: scrape.Options{Sink: nopSink{}, Metrics: scrape.NewMetrics(reg)}})
	}()
	wait(t, l.calls, "the first list")
	wait(t, hitA, "the first target's scrape")
	tick <- time.Now()
	wait(t, l.calls, "the second list")
	wait(t, hitB, "the second target's scrape") // started after the first was stopped
	up := func() string {
		out, _ := reg.Gather()
		var s []string
		for _, mf := range out {
			if mf.GetName() == "specwatch_scrape_up" {
				for _, m := range mf.Metric {
					s = append(s, m.Label[0].GetValue())
				}
			}
		}
		return strings.Join(s, ",")
	}
	if got := up(); got != b.URL+"/metrics" {
		t.Errorf("specwatch_scrape_up targets %q, want only %s", got, b.URL)
	}
	tick <- time.Now()
	wait(t, l.calls, "the failing list")
	tick <- time.Now() // the loop is back at its wait: the failing refresh is over
	wait(t, l.calls, "the fourth list")
	if got := up(); got != b.URL+"/metrics" {
		t.Errorf("after a failed list: targets %q, want %s kept", got, b.URL)
	}
	select {
	case <-hitA:
		t.Error("the removed target was scraped again")
	default:
	}
	cancel()
	wait(t, done, "Run to return")
}
