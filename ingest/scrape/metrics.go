package scrape

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the scraper's own health, per target (the URL without credentials).
type Metrics struct {
	up       *prometheus.GaugeVec
	duration *prometheus.GaugeVec
	failures *prometheus.CounterVec
	resets   *prometheus.CounterVec
	samples  *prometheus.CounterVec
	draft    *prometheus.GaugeVec
	records  *prometheus.CounterVec
	dropped  *prometheus.CounterVec
}

// Outcomes of TensorRT-LLM iteration-stats records, the values of the outcome label.
const (
	outcomeApplied   = "applied"   // applied once
	outcomeDuplicate = "duplicate" // an iteration already applied: skipped
	outcomeMalformed = "malformed" // no iteration counter, a rank out of bounds, not a record
)

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
		resets: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "specwatch_scrape_resets_total",
			Help: "Times a target's speculative-decoding counters went down (an engine restart): the interval started again."}, []string{"target"}),
		samples: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "specwatch_scrape_samples_total",
			Help: "Samples the scrapes of the target gave the model."}, []string{"target"}),
		draft: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "specwatch_scrape_draft_samples",
			Help: "SGLang drafter samples (engine_type=\"draft\") the last scrape of the target left out: no engine series of their own."}, []string{"target"}),
		records: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "specwatch_scrape_iteration_records_total",
			Help: "TensorRT-LLM iteration-stats records read from the target, by outcome (applied, duplicate, malformed)."}, []string{"target", "outcome"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "specwatch_scrape_iteration_records_dropped_total",
			Help: "TensorRT-LLM iterations whose stats record never reached a scrape of the target (gaps in the iteration counter: the engine's bounded queue dropped them)."}, []string{"target"}),
	}
	if reg != nil {
		reg.MustRegister(m.up, m.duration, m.failures, m.resets, m.samples, m.draft, m.records, m.dropped)
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
	m.draft.WithLabelValues(target)
	for _, o := range []string{outcomeApplied, outcomeDuplicate, outcomeMalformed} {
		m.records.WithLabelValues(target, o)
	}
	m.dropped.WithLabelValues(target)
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
	m.draft.DeleteLabelValues(target)
	for _, o := range []string{outcomeApplied, outcomeDuplicate, outcomeMalformed} {
		m.records.DeleteLabelValues(target, o)
	}
	m.dropped.DeleteLabelValues(target)
}
