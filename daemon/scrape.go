package daemon

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"sync"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/kubepods"
	"github.com/specwatch/specwatch/ingest/scrape"
	"github.com/specwatch/specwatch/ingest/scrape/discover"
	"github.com/specwatch/specwatch/internal/urlshow"
)

// StartScrape scrapes the config's targets (scrape:, --scrape.url) and, with
// kubernetes.scrape_annotations, the node's annotated pods, until stop is called (stop releases
// the scrapers and waits for them). Their samples are src's entries, for the daemon's Follow to
// read beside the logs. With neither, src is nil.
func (d *Daemon) StartScrape(ctx context.Context) (src ingest.Source, stop func(), err error) {
	cfg := d.o.Config
	targets, err := cfg.ScrapeTargets()
	if err != nil {
		return nil, nil, err
	}
	k := cfg.Kubernetes
	annotations := k.Enabled && k.ScrapeAnnotations
	if len(targets) == 0 && !annotations {
		return nil, func() {}, nil
	}
	q := ingest.NewSamples()
	// A loopback target is an engine on this machine: its series joins the logs' of this host.
	opts := scrape.Options{Sink: q, Metrics: scrape.NewMetrics(d.metrics.Registry()), LocalHost: NodeName(),
		Warn: func(target, msg string, err error) {
			ev := d.log.Info() // "scrape recovered": once per outage, as "scrape failed"
			if err != nil {
				ev = d.log.Warn().Err(err)
			}
			ev.Str("source", "scrape").Str("target", target).Msg(msg)
		}}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if len(targets) > 0 {
		so := opts
		so.Targets = targets
		sc, err := scrape.New(so)
		if err != nil {
			cancel()
			return nil, nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = sc.Run(ctx) // returns nil once ctx ends
		}()
		for _, t := range targets {
			u, _ := url.Parse(t.URL) // validated
			d.log.Info().Str("source", "scrape").Str("target", urlshow.String(u)).Float64("interval_seconds", t.Interval.Seconds()).Float64("timeout_seconds", t.Timeout.Seconds()).
				Str("unit", t.Labels["unit"]).Msg("scraping")
		}
	}
	if annotations {
		lister, err := podLister(k)
		if err != nil {
			cancel()
			q.Close()
			wg.Wait()
			return nil, nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			discover.Run(ctx, discover.Options{Lister: lister, Refresh: k.Refresh, Source: opts,
				Log: func(msg, target string, err error) {
					ev := d.log.Info()
					if err != nil {
						ev = d.log.Warn().Err(err)
					}
					ev.Str("target", target).Msg(msg)
				}})
		}()
		d.log.Info().Str("node", os.Getenv("NODE_NAME")).Float64("refresh_seconds", k.Refresh.Seconds()).Msg("scraping the node's pods annotated specwatch.io/scrape")
	}
	// The queue is closed first: a scraper waiting for its sample to be applied is released.
	return q, func() { cancel(); q.Close(); wg.Wait() }, nil
}

// podLister lists the node's annotated pods with the pod's own service account; the node is
// NODE_NAME (the downward API's spec.nodeName) and the API server the in-cluster one, or
// KUBERNETES_SERVICE_HOST:PORT where the cluster DNS is not used.
func podLister(k config.KubernetesConfig) (*kubepods.Discoverer, error) {
	tokenFile, caFile := k.TokenFile, k.CAFile
	if tokenFile == "" {
		tokenFile = kubepods.DefaultTokenFile
	}
	if caFile == "" {
		caFile = kubepods.DefaultCAFile
	}
	token, err := kubepods.ReadToken(tokenFile)
	if err != nil {
		return nil, fmt.Errorf("kubernetes.scrape_annotations: %w", err)
	}
	ca, err := kubepods.ReadCA(caFile)
	if err != nil {
		return nil, fmt.Errorf("kubernetes.scrape_annotations: %w", err)
	}
	api := k.APIServer
	if h, p := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT"); api == "" && h != "" && p != "" {
		api = "https://" + net.JoinHostPort(h, p)
	}
	return kubepods.New(kubepods.Options{APIServer: api, Token: token, CA: ca, Node: os.Getenv("NODE_NAME"),
		Interval: config.DefaultScrapeInterval, Timeout: config.DefaultScrapeTimeout})
}
