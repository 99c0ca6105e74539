package demo

import (
	"context"
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
	eng := &enginemetrics.VLLM{}
	start := now()
	base, stop, err := serveLoopback(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write(eng.Exposition(now().Sub(start)))
	}))
	if err != nil {
		return nil, err
	}
	cfg.Scrape = append(cfg.Scrape, config.ScrapeConfig{URL: base + "/metrics", Interval: 2 * time.Second, Timeout: time.Second,
		Labels: map[string]string{"host": MetricsHost, "unit": MetricsUnit}})
	return stop, nil
}

// serveLoopback serves h on a free loopback port, at base (http://127.0.0.1:PORT), until stop,
// which shuts the server down and waits for it. A failure to serve shows on the demo's page as
// the target down; there is nothing else to do with it.
func serveLoopback(h http.Handler) (base string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: h}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}
