package daemon

import (
	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/ingest/file"
	"github.com/specwatch/specwatch/ingest/journal"
)

// checkJournal logs the unit names completed as `journalctl -u` completes them, and warns of
// each unit and identifier that selects no entry in the journal. That is no reason to be
// unready: a unit that has not logged yet (specwatch starts before the engine at boot) cannot
// be told from a typo, and it reads as soon as the unit logs.
func (d *Daemon) checkJournal(opts journal.Options, start bool) {
	if start {
		d.sources.configured("journal")
	}
	for _, u := range opts.Units {
		if m := journal.MangleUnit(u); m != u {
			d.log.Info().Str("source", "journal").Str("given", u).Str("unit", m).Msg("journal unit completed as journalctl -u completes it")
		}
	}
	if len(opts.Units)+len(opts.Identifiers) == 0 {
		return // the whole journal
	}
	units, ids, err := journal.Empty(opts)
	if err != nil {
		d.log.Warn().Err(err).Str("source", "journal").Msg("cannot check what journal.unit and journal.identifier select")
		return
	}
	for _, u := range units {
		d.log.Warn().Str("source", "journal").Str("unit", u).
			Msg("journal.unit selects no entry in the journal: check the name (journalctl -u shows the same)")
	}
	for _, id := range ids {
		d.log.Warn().Str("source", "journal").Str("identifier", id).
			Msg("journal.identifier selects no entry in the journal: check the name (journalctl -t shows the same)")
	}
}

// checkSources warns, at a reload, of what the loaded configuration's sources would read
// nothing of: globs matching no file, units and identifiers selecting no entry. Sources are
// start-only keys, so readiness stays as the running sources make it.
func (d *Daemon) checkSources(cfg config.Config) {
	for _, g := range cfg.Files {
		n, err := file.CheckGlob(g)
		if n > 0 {
			continue
		}
		ev := d.log.Warn()
		if err != nil {
			ev = ev.Err(err).Str("reason", file.Reason(err))
		}
		ev.Str("source", "files").Str("glob", g).Msg("glob matches no file")
	}
	if !cfg.ReadsJournal() {
		return
	}
	backend, err := journal.ParseBackend(cfg.Journal.Backend)
	if err != nil {
		return // validated
	}
	d.checkJournal(journal.Options{Dir: cfg.Journal.Dir, Namespace: cfg.Journal.Namespace, Units: cfg.Journal.Units,
		Identifiers: cfg.Journal.Identifiers, Backend: backend}, false)
}
