// Package exporter publishes the model as metrics: one private Prometheus registry (the single
// source of truth), served on /metrics by package web and pushed to VictoriaMetrics by Pusher.
// It reads the model only through Source, whose implementations copy under the pipeline's lock,
// so no scrape or push can hold ingestion up.
package exporter

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/model/rank"
)

// MetricsOptions configure NewMetrics.
type MetricsOptions struct {
	// Source feeds the per-series and process-level metrics; required.
	Source Source
	// MaxSeries caps the series the exporter exports and keeps step histograms for (label
	// cardinality). Series IDs at or above it are left out and their step observations counted
	// in specwatch_series_dropped_total. Zero means model.DefaultMaxSeries; the model's own cap
	// normally bounds the series first.
	MaxSeries int
	// Version and Revision label specwatch_build_info; empty means "dev" and "unknown".
	Version, Revision string
}

// Metrics is specwatch's one private registry, the single source of truth for /metrics and
// the VictoriaMetrics push, and the step-duration histogram the pipeline feeds.
type Metrics struct {
	reg          *prometheus.Registry
	steps        *prometheus.HistogramVec
	pushFailures prometheus.Counter
	maxSeries    int
	droppedSteps atomic.Int64

	// observers caches each series' histogram child by series ID, so that ObserveStep does a
	// slice index and a label comparison instead of a label lookup. Pipeline goroutine only.
	observers []stepObserver
}

type stepObserver struct {
	labels model.Labels
	obs    prometheus.Observer
}

// stepBuckets are the classic buckets of specwatch_step_duration_seconds, 10 ms to 10 s,
// densest where decode steps of speculative engines fall (20-300 ms). The native buckets
// (factor 1.1) resolve much finer for scrapers that negotiate them; the classic ones keep
// the text format and the VictoriaMetrics push useful.
var stepBuckets = []float64{0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 2.5, 5, 10}

// NewMetrics builds the registry: the per-series collector reading opts.Source, the step
// histogram, push failures, build info and the Go and process collectors.
func NewMetrics(opts MetricsOptions) (*Metrics, error) {
	if opts.Source == nil {
		return nil, errors.New("exporter: MetricsOptions.Source is nil")
	}
	if opts.MaxSeries <= 0 {
		opts.MaxSeries = model.DefaultMaxSeries
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Revision == "" {
		opts.Revision = "unknown"
	}
	m := &Metrics{reg: prometheus.NewRegistry(), maxSeries: opts.MaxSeries}
	m.steps = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:                           "specwatch_step_duration_seconds",
		Help:                           "Duration of decode steps, one observation per decode point (logged or derived step time).",
		Buckets:                        stepBuckets,
		NativeHistogramBucketFactor:    1.1,
		NativeHistogramMaxBucketNumber: 160, // beyond it the resolution halves; no reset
	}, seriesLabels)
	m.pushFailures = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "specwatch_push_failures_total",
		Help: "Pushes to the remote-write URL (--push-url) that failed; the next push sends the current values again.",
	})
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "specwatch_build_info",
		Help: "Always 1; the labels name the build of specwatch that exports these metrics.",
		ConstLabels: prometheus.Labels{
			"version": opts.Version, "revision": opts.Revision, "goversion": runtime.Version(),
		},
	})
	build.Set(1)
	coll := &collector{src: opts.Source, d: newDescs(), maxSeries: opts.MaxSeries,
		dropped: &m.droppedSteps}
	for _, c := range []prometheus.Collector{coll, m.steps, m.pushFailures, build,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := m.reg.Register(c); err != nil {
			return nil, fmt.Errorf("exporter: registering metrics: %w", err)
		}
	}
	return m, nil
}

// Registry is the registry behind /metrics and the push: a Gatherer for both, and a
// Registerer for components that add their own metrics.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// PushFailures is specwatch_push_failures_total, for PushOptions.Failures.
func (m *Metrics) PushFailures() prometheus.Counter { return m.pushFailures }

// ObserveStep records one decode step of the series with dense ID seriesID (model.Series.ID)
// and labels. It is meant for the pipeline goroutine only (like model.Set, it is not safe for
// concurrent use) and does not allocate once the series has been seen: the histogram child is
// cached in a slice indexed by ID and re-resolved only if the labels at that ID change (a new
// model.Set after a reload). Negative or non-finite durations are ignored: one NaN would turn
// the histogram's _sum into NaN for good. The pipeline feeds each decode point once:
//
//	if se := set.Observe(&sample); se != nil {
//		if step, seq := se.StepObserved(); seq != lastSeq[se.ID()] {
//			lastSeq[se.ID()] = seq
//			metrics.ObserveStep(se.ID(), se.Labels(), step)
//		}
//	}
func (m *Metrics) ObserveStep(seriesID int, labels model.Labels, seconds float64) {
	if !(seconds >= 0) || math.IsInf(seconds, 1) {
		return
	}
	if seriesID < 0 || seriesID >= m.maxSeries {
		m.droppedSteps.Add(1)
		return
	}
	if seriesID < len(m.observers) {
		if o := &m.observers[seriesID]; o.obs != nil && o.labels == labels {
			o.obs.Observe(seconds)
			return
		}
	}
	m.newObserver(seriesID, labels).Observe(seconds)
}

// newObserver resolves and caches the histogram child of a series seen for the first time.
func (m *Metrics) newObserver(id int, labels model.Labels) prometheus.Observer {
	for len(m.observers) <= id {
		m.observers = append(m.observers, stepObserver{})
	}
	l := validLabels(labels)
	r := rank.Split(l.Rank)
	o := m.steps.WithLabelValues(l.Host, l.Unit, l.Engine, l.Rank, r.DP, r.TP, r.PP, r.EP, r.AttnCP, l.Container, l.Namespace, l.Pod)
	m.observers[id] = stepObserver{labels: labels, obs: o}
	return o
}
