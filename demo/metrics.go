package demo

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/sim/enginemetrics"
)

// Where the demo's vLLM engine on /metrics lands: a rank of its own (its time is the wall
// clock's, not the replayed log's), an MTP service whose num_speculative_tokens 5 is too high.
const (
	MetricsHost = "demo-gpu03"
	MetricsUnit = "vllm-mtp.service"
)

// StartMetrics serves a simulated vLLM engine's /metrics on a loopback port and adds it to
// cfg's scrape targets, so that the demo shows the scrape source and acceptance per position.
// stop closes the server and waits for it.
func StartMetrics(cfg *config.Config, now func() time.Time) (stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	eng := &enginemetrics.VLLM{}
	start := now()
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write(eng.Exposition(now().Sub(start)))
	})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the demo shows the target down on its page; nothing else to do
		}
	}()
	cfg.Scrape = append(cfg.Scrape, config.ScrapeConfig{URL: "http://" + ln.Addr().String() + "/metrics", Interval: 2 * time.Second, Timeout: time.Second,
		Labels: map[string]string{"host": MetricsHost, "unit": MetricsUnit}})
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}
