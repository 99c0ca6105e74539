package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/pipeline"
	"github.com/specwatch/specwatch/report"
	"github.com/specwatch/specwatch/web"
)

// daemon is everything `run` and `demo` share: the model behind its lock, the metrics, the
// HTTP server and the optional push. Lifecycle: newDaemon, then serve(ctx, feed) which returns
// when ctx ends (after the final push and a graceful HTTP shutdown) or when feed fails.
type daemon struct {
	cfg     config.Config
	log     zerolog.Logger
	slog    *slog.Logger
	state   *pipeline.State
	metrics *exporter.Metrics
	server  *web.Server
	parser  atomic.Pointer[parse.Parser]
	title   string

	reloadOK, reloadTime prometheus.Gauge
}

// reloaded records a SIGHUP's outcome in the conventional pair of gauges.
func (d *daemon) reloaded(ok bool) {
	v := 0.0
	if ok {
		v = 1
	}
	d.reloadOK.Set(v)
	if ok {
		d.reloadTime.SetToCurrentTime()
	}
}

func newDaemon(cfg config.Config, log zerolog.Logger, live bool, title string) (*daemon, error) {
	d := &daemon{cfg: cfg, log: log, slog: slog.New(zerolog.NewSlogHandler(log)), title: title}
	// Every daemon's page follows a stream, so its verdicts follow the anomalies active now; an
	// offline verdict (episodes that ended count) kept the demo's ANOMALOUS badge on a rank
	// after its stuck-drafter episode ended, above an explanation saying "expected".
	d.state = pipeline.NewState(pipeline.StateOptions{Model: cfg.ModelOptions(true), Live: live})
	d.parser.Store(parse.NewParser(cfg.ParseOptions()))
	v, rev := buildVersion()
	m, err := exporter.NewMetrics(exporter.MetricsOptions{Source: d.state, MaxSeries: cfg.Model.MaxSeries, Version: v, Revision: rev})
	if err != nil {
		return nil, err
	}
	d.metrics = m
	d.reloadOK = prometheus.NewGauge(prometheus.GaugeOpts{Name: "specwatch_config_last_reload_successful",
		Help: "Whether the last configuration reload (SIGHUP) succeeded."})
	d.reloadTime = prometheus.NewGauge(prometheus.GaugeOpts{Name: "specwatch_config_last_reload_success_timestamp_seconds",
		Help: "Time of the last successful configuration load."})
	d.reloadOK.Set(1)
	d.reloadTime.SetToCurrentTime()
	m.Registry().MustRegister(d.reloadOK, d.reloadTime)
	d.server = web.NewServer(web.ServerOptions{
		ListenAddress: cfg.Listen, WebConfigFile: cfg.WebConfig, Logger: d.slog,
		Source: d.state, Metrics: m.Registry(), Page: d.page,
	})
	if err := d.server.Listen(); err != nil {
		return nil, fmt.Errorf("listen %s: %w", cfg.Listen, err)
	}
	return d, nil
}

// page renders the live status page (it refreshes itself every 10 s).
func (d *daemon) page(w io.Writer) error {
	v, _ := buildVersion()
	return report.WritePage(w, d.state.Report(), d.state.Plots(),
		report.PageOptions{Title: d.title, Refresh: 10 * time.Second, Now: time.Now(), Version: v})
}

// serve runs the HTTP server, the push and feed (the ingest loop) until ctx ends.
func (d *daemon) serve(ctx context.Context, feed func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	httpDone := make(chan error, 1)
	go func() { httpDone <- d.server.Serve(ctx) }()
	var pusher *exporter.Pusher
	if d.cfg.Push.URL != "" {
		p, err := exporter.StartPush(ctx, exporter.PushOptions{
			URL: d.cfg.Push.URL, Interval: d.cfg.Push.Interval, ExtraLabels: d.cfg.Push.Labels,
			Gatherer: d.metrics.Registry(), Failures: d.metrics.PushFailures(), Logger: d.log,
		})
		if err != nil {
			return err
		}
		pusher = p
	}
	d.log.Info().Str("listen", d.server.Addr()).Msg("serving /metrics, /api/v1/report and the status page")
	feedErr := feed(ctx)
	cancel()
	if pusher != nil {
		<-pusher.Done() // the final push, bounded by its own timeout
	}
	httpErr := <-httpDone
	if feedErr != nil {
		return feedErr
	}
	if httpErr != nil && !errors.Is(httpErr, context.Canceled) {
		return httpErr
	}
	return nil
}

// pipeline builds the feed loop on this daemon's model.
func (d *daemon) pipeline(loc *time.Location, year int) *pipeline.Pipeline {
	return pipeline.New(d.state, pipeline.Options{Parser: &d.parser, Location: loc, Year: year, Steps: d.metrics, Log: d.log})
}

func exitOnSignalHint() string {
	if os.Getenv("INVOCATION_ID") != "" {
		return ""
	}
	return " (Ctrl-C to stop)"
}
