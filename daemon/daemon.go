// Package daemon is specwatch's server as a library: the model behind its lock; the sources
// that feed it (the journal, files, scrapes of /metrics and Kubernetes discovery), with the
// warm restart before them; /metrics, the report API and the status page; the push; and live
// reloads. cmd/specwatch keeps the flags, the signals and the process's settings.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/ingest/journal"
	"github.com/specwatch/specwatch/internal/statelock"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/pipeline"
	"github.com/specwatch/specwatch/report"
	"github.com/specwatch/specwatch/web"
)

// Options configure New.
type Options struct {
	Config config.Config
	Log    zerolog.Logger
	// Live: the inputs are followed as they are written (run); the demo's replay of recorded
	// time is not.
	Live bool
	// Follow: the daemon reads the configured journal, files and scrapes (Run): New takes the
	// state directory's lock and loads the saved journal cursor. The demo feeds its own replay.
	Follow bool
	// Title is the status page's.
	Title string
	// Version and Revision are the build's, for specwatch_build_info and the page.
	Version, Revision string
}

// Daemon is specwatch's server: the model behind its lock, the metrics, the HTTP server and
// the optional push, fed by Run (or by a feed of the caller's, as the demo's replay). Lifecycle:
// New (which listens), then one Run or Serve, which returns when ctx ends (after the final push
// and a graceful HTTP shutdown) or when reading fails, then Close. Reload and ReloadFailed may
// be called from another goroutine while it runs.
type Daemon struct {
	o       Options
	log     zerolog.Logger
	slog    *slog.Logger
	state   *pipeline.State
	metrics *exporter.Metrics
	server  *web.Server
	sources *sources // the sources' health: /-/ready, specwatch_source_*
	parser  atomic.Pointer[parse.Parser]
	lock    *statelock.Lock // the state directory's, with Follow
	cursor  string          // the saved journal cursor, with Follow

	mu  sync.Mutex    // guards cfg: Reload replaces it while Run reads its start-only keys
	cfg config.Config // as last loaded

	reloadOK, reloadTime prometheus.Gauge

	stop stopped // what Run's feed saved, for the shutdown line
}

// stopped is what the shutdown line says was saved.
type stopped struct {
	followed       bool     // Run's feed ran to its end
	positions      []string // what the positions are ("the journal cursor", "the file positions")
	positionsSaved bool
	snapshot       bool // model.snapshot is on
	modelSaved     bool
}

// New builds the daemon and listens; with Follow it first takes the state directory's lock
// (another daemon on it is refused before the port is touched) and loads the saved cursor.
func New(o Options) (*Daemon, error) {
	cfg := o.Config
	d := &Daemon{o: o, cfg: cfg, log: o.Log, slog: newSlog(o.Log)}
	if o.Follow {
		if _, err := journal.ParseBackend(cfg.Journal.Backend); err != nil {
			return nil, err
		}
		if err := d.lockState(); err != nil {
			return nil, err
		}
	}
	// Every daemon's page follows a stream, so its verdicts follow the anomalies active now; an
	// offline verdict (episodes that ended count) kept the demo's ANOMALOUS badge on a rank
	// after its stuck-drafter episode ended, above an explanation saying "expected".
	d.state = pipeline.NewState(pipeline.StateOptions{Model: cfg.ModelOptions(true), Live: o.Live})
	d.parser.Store(parse.NewParser(cfg.ParseOptions()))
	m, err := exporter.NewMetrics(exporter.MetricsOptions{Source: d.state, MaxSeries: cfg.Model.MaxSeries, Version: o.Version, Revision: o.Revision})
	if err != nil {
		d.Close()
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
	d.sources = newSources(m.Registry(), d.log)
	d.server = web.NewServer(web.ServerOptions{
		ListenAddress: cfg.Listen, WebConfigFile: cfg.WebConfig, Logger: d.slog,
		Source: d.state, Metrics: m.Registry(), Page: d.page, Unready: d.sources.unready,
	})
	if err := d.server.Listen(); err != nil {
		d.Close()
		return nil, listenError(cfg.Listen, err)
	}
	return d, nil
}

// lockState makes the state directory, takes its lock and loads the saved journal cursor; a
// damaged cursor is reported and the journal starts as at a first start.
func (d *Daemon) lockState() error {
	dir := d.o.Config.StateDir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return stateDirError(fmt.Errorf("state directory %s: %w", dir, err))
	}
	lock, err := statelock.Acquire(dir)
	if err != nil {
		return stateDirError(err)
	}
	d.lock = lock
	cursor, err := journal.NewCursorStore(dir).Load()
	if err != nil {
		d.log.Warn().Err(err).Msg("cannot use the saved cursor; starting as a first start would (journal.since, else the tail)")
		cursor = ""
	}
	d.cursor = cursor
	return nil
}

// Close releases the state directory's lock.
func (d *Daemon) Close() {
	if d.lock != nil {
		d.lock.Release()
		d.lock = nil
	}
}

// Addr is the address the HTTP server listens on.
func (d *Daemon) Addr() string { return d.server.Addr() }

// Resumes reports whether Run continues from a saved journal cursor.
func (d *Daemon) Resumes() bool { return d.cursor != "" }

// Reload applies a configuration loaded again (SIGHUP): the parser's aliases and rules and
// the model's thresholds change live; the keys that need a restart are named in the log.
func (d *Daemon) Reload(cfg config.Config) {
	d.parser.Store(parse.NewParser(cfg.ParseOptions()))
	d.state.Reconfigure(cfg.ModelOptions(true))
	d.mu.Lock()
	if keys := config.RestartKeys(d.cfg, cfg); len(keys) > 0 {
		d.log.Warn().Strs("keys", keys).Msg("these settings changed and take effect at the next restart")
	}
	d.cfg = cfg
	d.mu.Unlock()
	d.reloaded(true)
	d.log.Info().Msg("configuration reloaded")
	if d.o.Follow {
		d.checkSources(cfg)
	}
}

// ReloadFailed records a reload whose configuration could not be loaded: the running one stays.
func (d *Daemon) ReloadFailed(err error) {
	d.log.Error().Err(err).Msg("config reload failed; keeping the running configuration")
	d.reloaded(false)
}

// reloaded records a reload's outcome in the conventional pair of gauges.
func (d *Daemon) reloaded(ok bool) {
	v := 0.0
	if ok {
		v = 1
	}
	d.reloadOK.Set(v)
	if ok {
		d.reloadTime.SetToCurrentTime()
	}
}

// Report is the daemon's report now, as /api/v1/report serves it unfiltered.
func (d *Daemon) Report() model.Report { return d.state.Report() }

// WritePage renders the status page as / serves it.
func (d *Daemon) WritePage(w io.Writer) error { return d.page(w) }

// page renders the live status page (it refreshes itself every 10 s).
func (d *Daemon) page(w io.Writer) error {
	return report.WritePage(w, d.state.Report(), d.state.Plots(),
		report.PageOptions{Title: d.o.Title, Refresh: 10 * time.Second, Now: time.Now(), Version: d.o.Version})
}

// Serve runs the HTTP server, the push and feed (the ingest loop) until ctx ends or feed
// fails. Run is Serve with the configured sources as the feed.
func (d *Daemon) Serve(ctx context.Context, feed func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	httpDone := make(chan error, 1)
	go func() { httpDone <- d.server.Serve(ctx) }()
	var pusher *exporter.Pusher
	if cfg := d.o.Config; cfg.Push.URL != "" {
		p, err := exporter.StartPush(ctx, exporter.PushOptions{
			URL: cfg.Push.URL, Interval: cfg.Push.Interval, ExtraLabels: cfg.Push.Labels,
			Gatherer: d.metrics.Registry(), Failures: d.metrics.PushFailures(), Logger: d.log,
		})
		if err != nil {
			return err
		}
		pusher = p
	}
	evDone := make(chan struct{})
	go func() { newEvents(d.log, d.state).run(ctx); close(evDone) }()
	feedErr := feed(ctx)
	cancel()
	<-evDone // its last check logs what the last entries changed
	if pusher != nil {
		<-pusher.Done() // the final push, bounded by its own timeout
	}
	httpErr := <-httpDone
	d.logStopped(feedErr)
	if feedErr != nil {
		return feedErr
	}
	if httpErr != nil && !errors.Is(httpErr, context.Canceled) {
		return httpErr
	}
	return nil
}

// Pipeline builds a feed loop on the daemon's model: the parser in use (Reload replaces it),
// loc for timestamps written without a zone, year for those written without one.
func (d *Daemon) Pipeline(loc *time.Location, year int) *pipeline.Pipeline {
	return d.pipeline(loc, year, nil)
}

func (d *Daemon) pipeline(loc *time.Location, year int, snaps pipeline.Snapshotter) *pipeline.Pipeline {
	return pipeline.New(d.state, pipeline.Options{Parser: &d.parser, Location: loc, Year: year, Steps: d.metrics, Log: d.log,
		Snapshots: snaps})
}

// logStopped is the daemon's last line: why it stopped and what was saved for the next start.
func (d *Daemon) logStopped(err error) {
	ev := d.log.Info()
	if err != nil {
		ev = d.log.Error().Err(err)
	}
	if st := d.stop; st.followed {
		ev = ev.Strs("positions", st.positions).Bool("positions_saved", st.positionsSaved)
		if st.snapshot {
			ev = ev.Bool("model_saved", st.modelSaved)
		}
	}
	ev.Msg("stopped")
}
