package scrape

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the scraper's own health, per target (the URL without credentials).
type Metrics struct {
	up       *prometheus.GaugeVec
	duration *prometheus.GaugeVec
	failures *prometheus.CounterVec
	resets   *prometheus.CounterVec
	samples  *prometheus.CounterVec
}

// Failure reasons, the values of the reason label.
const (
	reasonHTTP    = "http"    // connection refused, reset, non-2xx status
	reasonTimeout = "timeout" // the target's timeout passed
	reasonSize    = "size"    // the body exceeded the bound
	reasonFormat  = "format"  // the body did not decode
)

// NewMetrics registers the scraper's metrics on reg (nil: unregistered, for tests).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		up: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "specwatch_scrape_up",
			Help: "Whether the last scrape of the target succeeded (1) or not (0)."}, []string{"target"}),
		duration: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "specwatch_scrape_duration_seconds",
			Help: "How long the last scrape of the target took, successful or not."}, []string{"target"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "specwatch_scrape_failures_total",
			Help: "Scrapes of the target that failed, by reason (http, timeout, size, format)."}, []string{"target", "reason"}),
		resets: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "specwatch_scrape_counter_resets_total",
			Help: "Times a target's speculative-decoding counters went down (an engine restart): the interval started again."}, []string{"target"}),
		samples: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "specwatch_scrape_samples_total",
			Help: "Samples the scrapes of the target gave the model."}, []string{"target"}),
	}
	if reg != nil {
		reg.MustRegister(m.up, m.duration, m.failures, m.resets, m.samples)
	}
	return m
}

// init makes every target's series exist from the start (0 failures rather than no series).
func (m *Metrics) init(target string) {
	m.up.WithLabelValues(target).Set(0)
	for _, r := range []string{reasonHTTP, reasonTimeout, reasonSize, reasonFormat} {
		m.failures.WithLabelValues(target, r)
	}
	m.resets.WithLabelValues(target)
	m.samples.WithLabelValues(target)
}

// Forget removes a target's series: a discovered target that went away (its pod was deleted)
// leaves /metrics instead of staying at its last values forever, which pod churn would grow
// without bound.
func (m *Metrics) Forget(target string) {
	m.up.DeleteLabelValues(target)
	m.duration.DeleteLabelValues(target)
	for _, r := range []string{reasonHTTP, reasonTimeout, reasonSize, reasonFormat} {
		m.failures.DeleteLabelValues(target, r)
	}
	m.resets.DeleteLabelValues(target)
	m.samples.DeleteLabelValues(target)
}
