// Package discover keeps a scrape source per discovered target: it asks a lister for the
// current targets every refresh, starts scraping new ones and stops scraping those that went
// away, so that engines that come and go (pods on a Kubernetes node) are scraped while they
// exist and only then.
package discover

import (
	"context"
	"net/url"
	"sync"
	"time"

	"github.com/specwatch/specwatch/ingest/scrape"
	"github.com/specwatch/specwatch/internal/urlshow"
)

// Lister returns the targets that exist now, and one error per target it had to skip. It is
// called from one goroutine, once per refresh; an error leaves the running targets as they are.
type Lister interface {
	Targets(ctx context.Context) ([]scrape.Target, []error, error)
}

// Options configure Run.
type Options struct {
	Lister  Lister
	Refresh time.Duration // between two lists; 0: 30 s
	// Source is every target's scrape source's options but Targets (Sink, Metrics, Client,
	// Clock, MaxBodyBytes, Warn); each target gets one source of its own.
	Source scrape.Options
	// Tick paces the refreshes (tests); nil: a time.Ticker of Refresh.
	Tick <-chan time.Time
	// Log is told of each target started or stopped and of list failures (nil: nothing).
	Log func(msg, target string, err error)
}

// running is one target's source and how to stop it.
type running struct {
	t    scrape.Target
	stop context.CancelFunc
	done chan struct{}
}

// Run lists, starts and stops until ctx ends, then stops every target and waits for them.
func Run(ctx context.Context, o Options) {
	if o.Refresh <= 0 {
		o.Refresh = 30 * time.Second
	}
	tick := o.Tick
	if tick == nil {
		t := time.NewTicker(o.Refresh)
		defer t.Stop()
		tick = t.C
	}
	log := o.Log
	if log == nil {
		log = func(string, string, error) {}
	}
	live := map[string]*running{}
	var wg sync.WaitGroup
	defer func() {
		for _, r := range live {
			r.stop()
		}
		wg.Wait()
	}()
	for {
		refresh(ctx, &o, live, &wg, log)
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
	}
}

// refresh makes the running set the listed one. A target whose URL stays but whose labels or
// interval changed (a pod recreated with the same IP) is restarted.
func refresh(ctx context.Context, o *Options, live map[string]*running, wg *sync.WaitGroup, log func(string, string, error)) {
	ts, bad, err := o.Lister.Targets(ctx)
	if err != nil {
		log("target discovery failed; the running targets are kept", "", err)
		return
	}
	for _, e := range bad {
		log("discovered target skipped", "", e)
	}
	want := map[string]scrape.Target{}
	for _, t := range ts {
		want[t.URL] = t
	}
	for u, r := range live {
		if t, ok := want[u]; !ok || !same(t, r.t) {
			r.stop()
			<-r.done
			delete(live, u)
			if o.Source.Metrics != nil {
				o.Source.Metrics.Forget(redacted(u))
			}
			log("stopped scraping", redacted(u), nil)
		}
	}
	for u, t := range want {
		if live[u] != nil {
			continue
		}
		so := o.Source
		so.Targets = []scrape.Target{t}
		src, err := scrape.New(so)
		if err != nil {
			log("discovered target refused", redacted(u), err)
			continue
		}
		tctx, stop := context.WithCancel(ctx)
		r := &running{t: t, stop: stop, done: make(chan struct{})}
		live[u] = r
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(r.done)
			_ = src.Run(tctx)
		}()
		log("scraping", redacted(u), nil)
	}
}

func same(a, b scrape.Target) bool {
	if a.Interval != b.Interval || a.Timeout != b.Timeout || len(a.Labels) != len(b.Labels) {
		return false
	}
	for k, v := range a.Labels {
		if b.Labels[k] != v {
			return false
		}
	}
	return true
}

func redacted(u string) string {
	if p, err := url.Parse(u); err == nil {
		return urlshow.String(p)
	}
	return u
}
