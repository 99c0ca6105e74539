package exporter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	vmetrics "github.com/VictoriaMetrics/metrics"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/internal/urlshow"
)

// PushOptions configure StartPush.
type PushOptions struct {
	// URL receives the Prometheus text format, e.g. VictoriaMetrics'
	// http://vm:8428/api/v1/import/prometheus (--push-url). Credentials in it are never logged.
	URL string
	// Interval between pushes (--push-interval); must be positive.
	Interval time.Duration
	// ExtraLabels are added to every pushed series that does not carry the label already
	// (--push.label k=v): like Prometheus' external_labels, a series' own label wins, so a
	// per-series host from the journal is never overwritten by the pushing host's name.
	ExtraLabels map[string]string
	// Gatherer is the registry to push: Metrics.Registry(), the same one /metrics serves.
	Gatherer prometheus.Gatherer
	// Failures counts failed pushes (Metrics.PushFailures()); nil counts only in
	// Pusher.Failures.
	Failures prometheus.Counter
	// Logger receives push failures; the zero Logger discards them.
	Logger zerolog.Logger
	// FinalTimeout bounds the final push on shutdown, and so how long Stop can take; zero means
	// DefaultFinalTimeout.
	FinalTimeout time.Duration
}

// DefaultFinalTimeout bounds the final push: long enough for a busy receiver, short against
// systemd's stop timeout (90 s by default).
const DefaultFinalTimeout = 5 * time.Second

// Pusher pushes a registry periodically with VictoriaMetrics/metrics' push worker, in its own
// goroutine: a slow or dead receiver delays only the next push (each push times out after
// Interval + 1 s), never ingestion, which the push touches only through Source.Snapshot.
//
// Lifecycle: StartPush starts the worker; it runs until ctx is cancelled or Stop is called.
// Then one final push sends the latest values, because the library's worker itself just
// returns when its context is cancelled (VictoriaMetrics/metrics v1.45.0 push.go: no push on
// stop); Done is closed after it.
type Pusher struct {
	opts     PushOptions
	redacted string
	labels   []*dto.LabelPair // ExtraLabels, sorted by name
	log      zerolog.Logger

	cancel   context.CancelFunc
	worker   sync.WaitGroup
	done     chan struct{}
	failures atomic.Int64
	finalErr error
}

// StartPush validates opts and starts pushing. The first periodic push happens one Interval
// after the start.
func StartPush(ctx context.Context, opts PushOptions) (*Pusher, error) {
	u, err := url.Parse(opts.URL)
	if err != nil {
		// url.Error would quote the whole URL, credentials included.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("push URL (not shown: it may hold credentials): %w", err)
	}
	p := &Pusher{opts: opts, redacted: urlshow.String(u), log: opts.Logger, done: make(chan struct{})}
	if opts.Gatherer == nil {
		return nil, fmt.Errorf("push to %s: PushOptions.Gatherer is nil", p.redacted)
	}
	if opts.Interval <= 0 {
		return nil, fmt.Errorf("push to %s: interval %v is not positive", p.redacted, opts.Interval)
	}
	if p.labels, err = labelPairs(opts.ExtraLabels); err != nil {
		return nil, fmt.Errorf("push to %s: %w", p.redacted, err)
	}
	if p.opts.FinalTimeout <= 0 {
		p.opts.FinalTimeout = DefaultFinalTimeout
	}
	wctx, cancel := context.WithCancel(ctx)
	p.cancel = cancel
	err = vmetrics.InitPushExtWithOptions(wctx, opts.URL, opts.Interval, p.write, p.vmOptions(&p.worker))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("push to %s: %w", p.redacted, err)
	}
	go p.finish(wctx)
	return p, nil
}

func (p *Pusher) vmOptions(wg *sync.WaitGroup) *vmetrics.PushOptions {
	return &vmetrics.PushOptions{Method: http.MethodPost, LogErr: p.logErr, WaitGroup: wg}
}

// finish waits for the worker to stop, then pushes once more.
func (p *Pusher) finish(wctx context.Context) {
	defer close(p.done)
	<-wctx.Done()
	p.worker.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), p.opts.FinalTimeout)
	defer cancel()
	if err := vmetrics.PushMetricsExt(ctx, p.opts.URL, p.write, p.vmOptions(nil)); err != nil {
		p.finalErr = fmt.Errorf("final push: %w", err)
		p.logErr("final push: %s", err)
	}
}

// Stop ends the periodic push, waits for the final push and returns its error.
func (p *Pusher) Stop() error {
	p.cancel()
	<-p.done
	return p.finalErr
}

// Done is closed once the final push is over (after ctx was cancelled or Stop called).
func (p *Pusher) Done() <-chan struct{} { return p.done }

// Failures is the number of failed pushes so far.
func (p *Pusher) Failures() int64 { return p.failures.Load() }

// logErr is the library's error hook: it is called once per failed push, so it also counts.
// The library's messages name the URL redacted.
func (p *Pusher) logErr(format string, args ...any) {
	p.failures.Add(1)
	if p.opts.Failures != nil {
		p.opts.Failures.Inc()
	}
	p.log.Warn().Str("url", p.redacted).Str("error", fmt.Sprintf(format, args...)).Msg("push failed")
}

// write is the library's writeMetrics callback: the registry's exposition in the Prometheus
// text format (classic histogram buckets; native buckets have no text form), with the extra
// labels added.
func (p *Pusher) write(w io.Writer) {
	mfs, err := p.opts.Gatherer.Gather()
	if err != nil {
		// Gather returns what it could collect alongside the error; push that.
		p.log.Warn().Str("url", p.redacted).Err(err).Msg("gathering metrics to push")
	}
	for _, mf := range mfs {
		addLabels(mf, p.labels)
		if _, err := expfmt.MetricFamilyToText(w, mf); err != nil {
			p.log.Warn().Str("url", p.redacted).Str("family", mf.GetName()).Err(err).Msg("encoding metrics to push")
			return
		}
	}
}
