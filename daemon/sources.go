package daemon

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/ingest/file"
)

// sources is what the daemon knows of its sources' health: whether each can read anything
// (/-/ready, specwatch_source_up) and their failures by reason (specwatch_source_errors_total).
// The sources report from their own goroutines; /-/ready and scrapes read concurrently.
type sources struct {
	log  zerolog.Logger
	up   *prometheus.GaugeVec
	errs *prometheus.CounterVec

	mu   sync.Mutex
	down map[string]string // source → why it can read nothing
}

// sourceReasons are specwatch_source_errors_total's reason values, each exported from the start.
var sourceReasons = []string{file.ReasonNotFound, file.ReasonPermissionDenied, file.ReasonOther}

func newSources(reg prometheus.Registerer, log zerolog.Logger) *sources {
	s := &sources{log: log, down: map[string]string{},
		up: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "specwatch_source_up",
			Help: "Whether the source can read anything: 0 while it follows no file and a glob's directory is missing or unlistable, or every file matched cannot be opened."},
			[]string{"source"}),
		errs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "specwatch_source_errors_total",
			Help: "Failures of a source by reason (not_found, permission_denied, other): each failed open of a matched file, and each glob whose directory became missing or unlistable."},
			[]string{"source", "reason"}),
	}
	reg.MustRegister(s.up, s.errs)
	return s
}

// configured exports a source's series from its start: up, and, for a source that opens
// paths (files), no errors yet.
func (s *sources) configured(source string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, down := s.down[source]; !down {
		s.up.WithLabelValues(source).Set(1)
	}
	if source != "files" {
		return
	}
	for _, r := range sourceReasons {
		s.errs.WithLabelValues(source, r)
	}
}

// failed counts one failure of source for reason.
func (s *sources) failed(source, reason string) { s.errs.WithLabelValues(source, reason).Inc() }

// setDown records that source can read nothing, and why; the change is logged once.
func (s *sources) setDown(source, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down[source] == why {
		return
	}
	s.down[source] = why
	s.up.WithLabelValues(source).Set(0)
	s.log.Warn().Str("source", source).Str("reason", why).Msg("source can read nothing; /-/ready answers 503")
}

// setUp records that source can read again; logged once, when it was down.
func (s *sources) setUp(source string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.up.WithLabelValues(source).Set(1)
	if _, ok := s.down[source]; !ok {
		return
	}
	delete(s.down, source)
	s.log.Info().Str("source", source).Msg("source reads again")
}

// unready says why a source can read nothing ("" when every one can), for /-/ready.
func (s *sources) unready() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var why []string
	for _, src := range slices.Sorted(maps.Keys(s.down)) {
		why = append(why, src+": "+s.down[src])
	}
	return strings.Join(why, "; ")
}

// fileEvent logs the file follower's events and keeps the files' health.
func (s *sources) fileEvent(e file.Event) {
	const src = "files"
	switch e.Kind {
	case file.GlobEmpty:
		ev := s.log.Warn()
		if e.Err != nil {
			ev = ev.Err(e.Err).Str("reason", e.Reason)
		}
		ev.Str("source", src).Str("glob", e.Glob).Msg("glob matches no file")
	case file.GlobMatches:
		s.log.Info().Str("source", src).Str("glob", e.Glob).Msg("glob matches files again")
	case file.OpenFailed:
		s.log.Warn().Err(e.Err).Str("source", src).Str("path", e.Path).Str("reason", e.Reason).
			Msg("cannot open a log file; retrying after 1 s, then twice as long each time up to a minute")
	case file.StillFailing:
		s.log.Warn().Err(e.Err).Str("source", src).Str("path", e.Path).Str("reason", e.Reason).Int("failures", e.Failures).
			Float64("over_seconds", e.Since.Seconds()).Msg("still cannot open a log file")
	case file.OpenRecovered:
		s.log.Info().Str("source", src).Str("path", e.Path).Int("failures", e.Failures).
			Float64("after_seconds", e.Since.Seconds()).Msg("log file opened after failing")
	case file.Down:
		s.setDown(src, e.Why)
	case file.Up:
		s.setUp(src)
	}
}
