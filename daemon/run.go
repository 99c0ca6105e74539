package daemon

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/file"
	"github.com/specwatch/specwatch/ingest/journal"
	"github.com/specwatch/specwatch/pipeline"
)

// Run serves (Serve) with the configured sources as the feed: the model saved at the last stop
// (or else the warm restart from the journal window before the saved cursor), then the scrapes,
// the files and the journal, each entry exactly once, until ctx ends, when the model is saved
// beside the positions. The daemon must have been made with Follow.
func (d *Daemon) Run(ctx context.Context) error {
	cfg, log := d.o.Config, d.log
	loc, err := time.LoadLocation(cfg.Timezone)
	if err != nil {
		return err // config.Load validated it
	}
	since, err := config.ParseWhen(cfg.Journal.Since, loc)
	if err != nil {
		return err
	}
	backend, err := journal.ParseBackend(cfg.Journal.Backend)
	if err != nil {
		return err
	}
	return d.Serve(ctx, func(ctx context.Context) error {
		// A model saved at a clean stop is restored, as of the positions the sources resume
		// from; without one, the journal's window is replayed.
		var positions []string
		if cfg.ReadsJournal() {
			positions = append(positions, journal.CursorFile)
		}
		if len(cfg.FileGlobs()) > 0 {
			positions = append(positions, file.PositionsFile)
		}
		restored := cfg.Model.Snapshot && restoreSnapshot(cfg.StateDir, positions, d.state, log)
		opts := journal.Options{
			Dir: cfg.Journal.Dir, Namespace: cfg.Journal.Namespace, Units: cfg.Journal.Units, Identifiers: cfg.Journal.Identifiers,
			Containers: cfg.Journal.Containers,
			Start:      journal.AfterCursor(d.cursor, journal.Since(since)), Backend: backend,
			Warn: func(msg string) { log.Warn().Str("source", "journal").Msg(msg) },
		}
		var snaps pipeline.Snapshotter
		var saver *snapshots
		if cfg.Model.Snapshot {
			saver = &snapshots{dir: cfg.StateDir, positions: positions, log: log}
			snaps = saver
		}
		p := d.pipeline(loc, time.Now().Year(), snaps)
		if cfg.ReadsJournal() && !restored {
			if err := warm(ctx, p, opts, d.cursor, cfg.Model.Warmup, log); err != nil {
				return err
			}
		}
		// Scraping and the forward passes start after the warm-up, whose end zeroes the counters:
		// samples counted meanwhile would be lost from them.
		scrapes, stopScrape, err := d.StartScrape(ctx)
		if err != nil {
			return err
		}
		defer stopScrape()
		passes, stopPasses, err := d.StartForwardPass(ctx)
		if err != nil {
			return err
		}
		defer stopPasses()
		// One input per source, each read on its own goroutine: adding a source is a package
		// and a line here.
		var inputs []pipeline.Input
		if scrapes != nil {
			inputs = append(inputs, pipeline.Input{Kind: "scrape", Source: scrapes})
		}
		if passes != nil {
			inputs = append(inputs, pipeline.Input{Kind: "forward_pass", Source: passes})
		}
		if len(cfg.FileGlobs()) > 0 {
			files, store := openFiles(cfg, log, d.sources)
			defer files.Close()
			d.metrics.Registry().MustRegister(files) // specwatch_file_*
			inputs = append(inputs, pipeline.Input{Kind: "files", Name: "the file positions", Source: ingest.Poll(files, ingest.PollOptions{Active: activeWait}), Cursor: store})
		}
		if cfg.ReadsJournal() {
			d.checkJournal(opts, true)
			opened, err := journal.Open(opts)
			if err != nil {
				return err
			}
			log.Info().Str("source", "journal").Str("dir", cfg.Journal.Dir).Strs("units", mangled(cfg.Journal.Units)).
				Strs("identifiers", cfg.Journal.Identifiers).Strs("containers", cfg.Journal.Containers).
				Str("start", opts.Start.String()).Msg("reading the journal")
			src := journal.WithMetrics(opened)
			defer src.Close()
			d.metrics.Registry().MustRegister(src) // specwatch_journal_*_total
			inputs = append(inputs, pipeline.Input{Kind: "journal", Name: "the journal cursor", Source: ingest.Poll(src, ingest.PollOptions{Active: activeWait}),
				Cursor: journal.NewCursorStore(cfg.StateDir), CountFailures: true})
		}
		err = p.Follow(ctx, inputs...)
		d.stop = stopped{followed: true, positionsSaved: p.Saved(), snapshot: saver != nil, modelSaved: saver != nil && saver.saved}
		for _, in := range inputs {
			if in.Cursor != nil {
				d.stop.positions = append(d.stop.positions, in.Name)
			}
		}
		return err
	})
}

// activeWait is a reader's wait while entries are flowing (for a second after the last):
// journald announces appends up to 250 ms late. A wait costs a wake-up of the reader: at 2,000
// lines/s and 20 ms, the daemon used 2.0-2.3 % of a core through libsystemd and the write →
// /metrics p99 was 32-45 ms (target 50); a 25 ms wait took the p99 to 36-46 ms.
const activeWait = 20 * time.Millisecond

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
		ev = log.Warn().Float64("bound_seconds", maxWarmTime.Seconds())
	}
	ev.Int64("entries", st.Entries).Time("from", st.First).Time("to", w.End()).Float64("took_seconds", st.Took.Seconds()).
		Bool("timed_out", st.TimedOut).Msg("model rebuilt from the journal before the saved cursor (warm restart)")
	return nil
}

// mangled are units as the journal reads them (journal.MangleUnit).
func mangled(units []string) []string {
	out := make([]string, len(units))
	for i, u := range units {
		out[i] = journal.MangleUnit(u)
	}
	return out
}
