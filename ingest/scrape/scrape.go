// Package scrape is the engines' own /metrics as a source: it scrapes vLLM, SGLang, llama.cpp
// and TensorRT-LLM expositions, turns the speculative-decoding counters into the model's
// samples (commit length = 1 + Δaccepted / Δdrafts per interval) and hands them to a Sink.
//
// Lifecycle: New checks the targets; Run scrapes each target on its own goroutine, every
// interval, each scrape bounded by the target's timeout and the body by MaxBodyBytes, and
// returns when ctx is cancelled, after every target's goroutine has returned. It never closes
// the sink. A slow, dead or hostile target costs only its own goroutine's time: the others,
// and the sink, never wait for it.
package scrape

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/specwatch/specwatch/internal/urlshow"
	"github.com/specwatch/specwatch/sample"
)

// DefaultMaxBodyBytes bounds one exposition. An engine's /metrics is tens of kilobytes (vLLM
// with its histograms, one engine: about 60 kB); 4 MiB leaves room for wide data-parallel
// deployments and still bounds a hostile one.
const DefaultMaxBodyBytes = 4 << 20

// Target is one engine's /metrics endpoint.
type Target struct {
	URL      string
	Interval time.Duration
	Timeout  time.Duration
	// Labels: "host" overrides the host taken from the URL (Options.LocalHost for a loopback
	// URL); "unit", "container", "namespace" and "pod" set those parts of the series key, so
	// that the series joins the one the engine's logs make (same host, unit, container, engine
	// and rank).
	Labels map[string]string
	// BearerToken, or Username and Password (basic auth), if the endpoint wants either.
	BearerToken        string
	Username, Password string
	// TLS configures an https target's client (nil: the system roots).
	TLS *tls.Config
	// IterStatsURL is TensorRT-LLM's iteration-stats JSON (trtllm-serve's /metrics; URL is then
	// its /prometheus/metrics): read at every scrape, which drains it (trtllm.go). Empty: none.
	IterStatsURL string
	// SGLang is an SGLang deployment's parallel sizes, for naming its ranks (Readings.SGLang).
	SGLang Sizes
}

// Sink takes resolved samples; pipeline.Pipeline is one. Calls are serialized by the source.
type Sink interface {
	ApplySample(sample.Result, *sample.Sample)
}

// Clock is the source's time: Now stamps each scrape, NewTicker paces a target.
type Clock interface {
	Now() time.Time
	NewTicker(d time.Duration) (c <-chan time.Time, stop func())
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) NewTicker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// Options configure New.
type Options struct {
	Targets []Target
	Sink    Sink
	Metrics *Metrics // nil: not exported
	Clock   Clock    // nil: the wall clock
	// Client does the requests; nil builds one that follows no redirects.
	Client       *http.Client
	MaxBodyBytes int64 // 0: DefaultMaxBodyBytes
	// LocalHost is the host of a target on loopback (localhost, 127.0.0.0/8, ::1) without a
	// host label: the engine runs on this machine, whose logs name it so, never "127.0.0.1".
	// Empty: the URL's host.
	LocalHost string
	// Warn is told of a target's first failure (at the start or after a success) and of its
	// recovery; the failures in between are only counted.
	Warn func(target, msg string, err error)
}

// Source scrapes its targets into its sink.
type Source struct {
	o       Options
	sinkMu  sync.Mutex
	targets []*target
	// bodies are the response buffers, shared: the targets' scrapes rarely overlap, so a few
	// buffers serve them all instead of one body-sized buffer per target.
	bodies sync.Pool
}

// target is one endpoint's state, touched only by its goroutine (mu covers a Scrape call made
// from elsewhere, as tests do).
type target struct {
	Target
	name   string // the URL without credentials: the metrics' target label
	host   string
	client *http.Client
	mu     sync.Mutex
	rd     Readings
	prev   map[rankKey]*prev
	gen    int
	// state is 0 before the first scrape, then 1 while scrapes succeed, -1 while they fail.
	state int8
	// The iteration-stats stream (trtllm.go): its URL without credentials, each attention-DP
	// rank's last iteration applied, and whether more than rank 0 was ever seen.
	statsName string
	drain     map[int]*drainRank
	adp       bool
	restarted bool // the last scrape's counters went down
}

// New checks the targets and builds the source.
func New(o Options) (*Source, error) {
	if o.Sink == nil {
		return nil, errors.New("scrape: no sink")
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.Client == nil {
		o.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	s := &Source{o: o}
	for _, t := range o.Targets {
		u, err := url.Parse(t.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("scrape target %q: want an http(s) URL", t.URL)
		}
		if t.Interval <= 0 || t.Timeout <= 0 {
			return nil, fmt.Errorf("scrape target %s: interval and timeout must be positive", urlshow.String(u))
		}
		tg := &target{Target: t, name: urlshow.String(u), host: u.Hostname(), prev: map[rankKey]*prev{}, client: o.Client,
			drain: map[int]*drainRank{}}
		tg.rd.SGLang = t.SGLang
		if t.IterStatsURL != "" {
			su, err := url.Parse(t.IterStatsURL)
			if err != nil || (su.Scheme != "http" && su.Scheme != "https") || su.Host == "" {
				return nil, fmt.Errorf("scrape target %s: iteration stats %q: want an http(s) URL", tg.name, t.IterStatsURL)
			}
			tg.statsName = urlshow.String(su)
		}
		if t.TLS != nil {
			tr := http.DefaultTransport.(*http.Transport).Clone()
			tr.TLSClientConfig = t.TLS
			c := *o.Client
			c.Transport = tr
			tg.client = &c
		}
		switch h := t.Labels["host"]; {
		case h != "":
			tg.host = h
		case o.LocalHost != "" && loopback(tg.host):
			tg.host = o.LocalHost
		}
		s.targets = append(s.targets, tg)
		if o.Metrics != nil {
			o.Metrics.init(tg.name)
		}
	}
	return s, nil
}

// Run scrapes every target once at the start and then every interval until ctx ends; it
// returns nil when ctx is cancelled and every target's goroutine has returned.
func (s *Source) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for i := range s.targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.loop(ctx, i)
		}()
	}
	wg.Wait()
	return nil
}

func (s *Source) loop(ctx context.Context, i int) {
	tick, stop := s.o.Clock.NewTicker(s.targets[i].Interval)
	defer stop()
	for {
		_ = s.Scrape(ctx, i) // counted and logged there
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
	}
}

// Scrape scrapes target i once, now, and applies its samples; Run calls it on each tick (tests
// call it directly with their clock). The error is also counted in the metrics.
func (s *Source) Scrape(ctx context.Context, i int) error {
	t := s.targets[i]
	t.mu.Lock()
	defer t.mu.Unlock()
	start := s.o.Clock.Now()
	buf, _ := s.bodies.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	ctype, err := s.fetch(ctx, t, buf)
	if err == nil {
		err = Decode(buf.Bytes(), ctype, &t.rd)
	}
	if buf.Cap() <= 1<<20 { // an exceptional body's buffer is left to the collector
		s.bodies.Put(buf)
	}
	m := s.o.Metrics
	if m != nil {
		m.duration.WithLabelValues(t.name).Set(s.o.Clock.Now().Sub(start).Seconds())
	}
	if err != nil {
		if m != nil {
			m.up.WithLabelValues(t.name).Set(0)
			m.failures.WithLabelValues(t.name, reason(err)).Inc()
		}
		if t.state >= 0 && s.o.Warn != nil {
			s.o.Warn(t.name, "scrape failed", err)
		}
		t.state = -1
		// the engine's stats buffer fills whether or not its exposition answered
		return errors.Join(err, s.drainAfter(ctx, t, start))
	}
	if m != nil {
		m.up.WithLabelValues(t.name).Set(1)
	}
	if t.state < 0 && s.o.Warn != nil {
		s.o.Warn(t.name, "scrape recovered", nil)
	}
	t.state = 1
	// the iteration stats first: they say whether the engine runs attention-DP ranks
	derr := s.drainAfter(ctx, t, start)
	n, resets := s.apply(t, start.UnixNano())
	t.restarted = resets > 0
	if m != nil {
		m.samples.WithLabelValues(t.name).Add(float64(n))
		m.resets.WithLabelValues(t.name).Add(float64(resets))
		m.draft.WithLabelValues(t.name).Set(float64(t.rd.Draft))
	}
	return derr
}

// drainAfter drains the target's iteration stats, if it has them; a failure is counted as the
// exposition's are. A reset of the exposition's counters at the last scrape is a restarted
// engine, whose iteration counter starts again.
func (s *Source) drainAfter(ctx context.Context, t *target, start time.Time) error {
	if t.IterStatsURL == "" {
		return nil
	}
	if t.restarted {
		clear(t.drain)
		t.restarted = false
	}
	c, err := s.drainIterStats(ctx, t, start.UnixNano())
	if m := s.o.Metrics; m != nil {
		m.records.WithLabelValues(t.name, outcomeApplied).Add(float64(c.applied))
		m.records.WithLabelValues(t.name, outcomeDuplicate).Add(float64(c.duplicate))
		m.records.WithLabelValues(t.name, outcomeMalformed).Add(float64(c.malformed))
		m.dropped.WithLabelValues(t.name).Add(float64(c.dropped))
		if err != nil {
			m.failures.WithLabelValues(t.name, reason(err)).Inc()
		}
	}
	return err
}

// loopback reports whether a URL's host names this machine's loopback interface.
func loopback(host string) bool {
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || ip != nil && ip.IsLoopback()
}

// errSize marks a body past the bound.
var errSize = errors.New("body larger than the bound")

// acceptExposition asks for the text format first: its parser is the fast one (openmetrics.go).
const acceptExposition = "text/plain;version=0.0.4;q=0.9,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1"

// fetch reads the exposition into buf, bounded in time and size, and returns its Content-Type.
func (s *Source) fetch(ctx context.Context, t *target, buf *bytes.Buffer) (string, error) {
	return s.get(ctx, t, t.URL, acceptExposition, buf)
}

func reason(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return reasonTimeout
	case errors.Is(err, errSize):
		return reasonSize
	case errors.Is(err, ErrFormat):
		return reasonFormat
	}
	return reasonHTTP
}

// forgetAfter drops a rank's interval start after this many scrapes without it.
const forgetAfter = 10

// apply turns the readings into samples and hands them to the sink.
func (s *Source) apply(t *target, now int64) (n, resets int) {
	t.gen++
	unit := []byte(t.Labels["unit"])
	ctr, ns, pod := []byte(t.Labels["container"]), []byte(t.Labels["namespace"]), []byte(t.Labels["pod"])
	host := []byte(t.host)
	for k, cur := range t.rd.ranks {
		p := t.prev[k]
		if p == nil {
			p = &prev{}
			t.prev[k] = p
		}
		if p.ok && reset(&p.r, cur) {
			resets++
		}
		if k.engine == sample.EngineTRTLLM && t.IterStatsURL != "" {
			if t.adp {
				continue // one process's aggregate of every attention-DP rank: no rank's series
			}
			cur.has &^= 1 << slotCommit // the iteration stats' counters give commit length
		}
		rank := []byte(k.rank)
		out := samples(p, now, cur, k.engine, func(x *sample.Sample) {
			x.Engine, x.Host, x.Unit, x.Rank, x.Time, x.Source = k.engine, host, unit, rank, now, sample.SourceMetrics
			x.Container, x.Namespace, x.Pod = ctr, ns, pod
		})
		p.t, p.r, p.ok, p.gen = now, *cur, true, t.gen
		s.sinkMu.Lock()
		for i := range out {
			s.o.Sink.ApplySample(sample.Matched, &out[i])
		}
		s.sinkMu.Unlock()
		n += len(out)
	}
	for k, p := range t.prev {
		if t.gen-p.gen > forgetAfter {
			delete(t.prev, k)
		}
	}
	return n, resets
}
