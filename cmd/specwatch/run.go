package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"
	sddaemon "github.com/coreos/go-systemd/v22/daemon"
	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/ingest/file"
	"github.com/specwatch/specwatch/ingest/journal"
	"github.com/specwatch/specwatch/internal/statelock"
	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/pipeline"
)

// defineRun declares run's flags; the action is the daemon: follow the journal exactly once,
// forever.
func defineRun(c *kingpin.CmdClause, stderr io.Writer) action {
	f := &runFlags{}
	f.register(c, stderr)
	return func(ctx context.Context, _, stderr io.Writer) error { return runDaemon(ctx, f, stderr) }
}

func runDaemon(ctx context.Context, f *runFlags, stderr io.Writer) error {
	// SIGHUP is queued from here on (internal/hupguard ignored it until now): one that arrives
	// while the config is read is applied by the reload loop, not lost.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	cfg, err := f.load()
	if err != nil {
		return err
	}
	daemonGC()
	daemonProcs()
	log, level, err := newLogger(cfg.Log.Level, cfg.Log.Format, stderr)
	if err != nil {
		return err
	}
	loc, _ := time.LoadLocation(cfg.Timezone) // validated
	since, _ := config.ParseWhen(cfg.Journal.Since, loc)
	backend, err := journal.ParseBackend(cfg.Journal.Backend)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return fmt.Errorf("state dir %s: %w", cfg.StateDir, err)
	}
	lock, err := statelock.Acquire(cfg.StateDir)
	if err != nil {
		return err
	}
	defer lock.Release()
	store := journal.NewCursorStore(cfg.StateDir)
	cursor, err := store.Load()
	if err != nil {
		log.Warn().Err(err).Msg("cannot use the saved cursor; starting as a first start would (journal.since, else the tail)")
		cursor = ""
	}
	d, err := newDaemon(cfg, log, true, "specwatch")
	if err != nil {
		return err
	}
	go d.reloadLoop(ctx, hup, f, level)
	log.Info().Strs("units", cfg.Journal.Units).Strs("identifiers", cfg.Journal.Identifiers).Strs("containers", cfg.Journal.Containers).
		Str("journal_dir", cfg.Journal.Dir).Bool("resume", cursor != "").Msg("specwatch starting" + exitOnSignalHint())
	// Ready for systemd (Type=notify): listening, and SIGHUP handled, so a reload systemd holds
	// back until now (ExecReload) cannot hit the process before it can take one. No-op when
	// NOTIFY_SOCKET is unset.
	if _, err := sddaemon.SdNotify(false, sddaemon.SdNotifyReady); err != nil {
		log.Warn().Err(err).Msg("cannot tell systemd the daemon is ready")
	}
	defer sddaemon.SdNotify(false, sddaemon.SdNotifyStopping)
	return d.serve(ctx, func(ctx context.Context) error {
		// Only this goroutine reads the source (the sdjournal handle itself lives on a thread of its
		// own).
		opts := journal.Options{
			Dir: cfg.Journal.Dir, Namespace: cfg.Journal.Namespace, Units: cfg.Journal.Units, Identifiers: cfg.Journal.Identifiers,
			Containers: cfg.Journal.Containers,
			Start:      journal.AfterCursor(cursor, journal.Since(since)), Backend: backend,
			Warn: func(msg string) { log.Warn().Msg(msg) },
		}
		p := d.pipeline(loc, time.Now().Year())
		// The warm-up replays the journal: with files alone there is none to replay (files are
		// not replayed yet: docs/files.md).
		if cfg.ReadsJournal() {
			if err := warm(ctx, p, opts, cursor, cfg.Model.Warmup, log); err != nil {
				return err
			}
		}
		// Scraping starts after the warm-up, whose end zeroes the counters: a scrape's samples
		// counted meanwhile would be lost from them.
		stopScrape, err := d.startScrape(ctx)
		if err != nil {
			return err
		}
		defer stopScrape()
		var files *file.Source
		var fileStore *file.Store
		if len(cfg.FileGlobs()) > 0 {
			files, fileStore = openFiles(cfg, log)
			defer files.Close()
			d.metrics.Registry().MustRegister(files) // specwatch_file_*
			if !cfg.ReadsJournal() {
				return p.Follow(ctx, files, fileStore)
			}
		}
		opened, err := journal.Open(opts)
		if err != nil {
			return err
		}
		src := journal.WithMetrics(opened)
		defer src.Close()
		d.metrics.Registry().MustRegister(src) // specwatch_journal_*_total
		if files != nil {
			both, sink := pipeline.Merge(files, fileStore, src, store)
			return p.Follow(ctx, both, sink)
		}
		return p.Follow(ctx, src, store)
	})
}

// maxWarmTime bounds a warm restart's replay: beyond it the model is rebuilt from the part of
// the window read, and the daemon goes live (docs/restart.md).
const maxWarmTime = 5 * time.Minute

// warm rebuilds the model from the journal window before cursor (model.warmup), so that a
// restart continues baselines, fits and detectors; nothing to do on a first start or with the
// warm-up off. A window that cannot be opened costs the history, never the live reading.
func warm(ctx context.Context, p *pipeline.Pipeline, opts journal.Options, cursor string, span time.Duration, log zerolog.Logger) error {
	if cursor == "" || span <= 0 {
		return nil
	}
	w, err := journal.OpenWindow(opts, cursor, span)
	if err != nil {
		log.Warn().Err(err).Msg("no warm restart: the model starts empty")
		return nil
	}
	defer w.Close()
	st, err := p.Warm(ctx, w, pipeline.WarmOptions{MaxDuration: maxWarmTime})
	if err != nil {
		if ctx.Err() != nil {
			return nil // shutting down: Follow returns at once
		}
		log.Warn().Err(err).Msg("warm restart stopped early: the model holds the part of the window read")
		return nil
	}
	ev := log.Info()
	if st.TimedOut {
		ev = log.Warn().Dur("bound", maxWarmTime)
	}
	ev.Int64("entries", st.Entries).Time("from", st.First).Time("to", w.End()).Dur("took", st.Took).
		Bool("timed_out", st.TimedOut).Msg("model rebuilt from the journal before the saved cursor (warm restart)")
	return nil
}

// reloadLoop applies SIGHUP: re-read the file and flags, validate, and on success switch the
// parts that can change live (log level, aliases and rules, model thresholds); on failure keep
// everything as it was and say why. Journal matches, listen address, state directory and push
// target need a restart, and the log says so.
func (d *daemon) reloadLoop(ctx context.Context, hup <-chan os.Signal, f *runFlags, level *levelWriter) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		}
		cfg, err := f.load()
		if err != nil {
			d.log.Error().Err(err).Msg("config reload failed; keeping the running configuration")
			d.reloaded(false)
			continue
		}
		if lvl, err := zerolog.ParseLevel(cfg.Log.Level); err == nil { // validated
			level.SetLevel(lvl)
		}
		d.parser.Store(parse.NewParser(cfg.ParseOptions()))
		d.state.Reconfigure(cfg.ModelOptions(true))
		if keys := config.RestartKeys(d.cfg, cfg); len(keys) > 0 {
			d.log.Warn().Strs("keys", keys).Msg("these settings changed and take effect at the next restart")
		}
		d.cfg = cfg
		d.reloaded(true)
		d.log.Info().Msg("configuration reloaded")
	}
}

// daemonGC collects garbage at 50 % heap growth instead of Go's 100 %, unless GOGC says
// otherwise. The daemon allocates little once running (a handful of collections a minute at
// 2,000 lines/s), so the extra collections cost no measurable CPU, and the peak heap is 2 MB
// smaller (live benchmark: RssAnon 10.2 → 8.1 MB): a sidecar on a GPU host should stay small.
func daemonGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}

// daemonProcs runs the daemon's Go code on one P unless GOMAXPROCS says otherwise. Its work is
// one pipeline goroutine (which reads the journal, or hands sdjournal's reads to its thread) and
// the HTTP handlers; a second P added hand-offs between threads, not throughput. Live
// benchmark, ten alternated 30 s runs each (one P vs two): peak RssAnon 6.0-6.2 vs 7.9-8.3 MB,
// p99 write → /metrics median 35 vs 43 ms, above the 50 ms target in 0 vs 3 runs; CPU median
// 2.85 vs 2.72 % of a core, inside the runs' spread (2.3-3.4 % either way).
func daemonProcs() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}
