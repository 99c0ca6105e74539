package main

import (
	"context"
	"net/url"
	"sync"

	"github.com/specwatch/specwatch/ingest/scrape"
	"github.com/specwatch/specwatch/pipeline"
)

// startScrape scrapes the config's targets (scrape:, --scrape) into the daemon's model through a
// pipeline of their own, beside the journal's, until stop is called (stop cancels and waits).
// With no targets it does nothing.
func (d *daemon) startScrape(ctx context.Context) (stop func(), err error) {
	targets, err := d.cfg.ScrapeTargets()
	if err != nil {
		return nil, err
	}
	if len(targets) == 0 {
		return func() {}, nil
	}
	p := pipeline.New(d.state, pipeline.Options{Steps: d.metrics, Log: d.log})
	src, err := scrape.New(scrape.Options{
		Targets: targets, Sink: p, Metrics: scrape.NewMetrics(d.metrics.Registry()),
		Warn: func(target, msg string, err error) { d.log.Warn().Str("target", target).Err(err).Msg(msg) },
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = src.Run(ctx) // returns nil once ctx ends
	}()
	for _, t := range targets {
		u, _ := url.Parse(t.URL) // validated
		d.log.Info().Str("target", u.Redacted()).Dur("interval", t.Interval).Dur("timeout", t.Timeout).Msg("scraping")
	}
	return func() { cancel(); wg.Wait() }, nil
}
