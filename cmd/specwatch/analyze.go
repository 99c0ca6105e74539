package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/parse"
)

// analyzeConfig is what the analyze flags say.
type analyzeConfig struct {
	format       string
	since, until time.Time
	loc          *time.Location
	maxSeries    int
	journalDir   string
	backend      string
	units        listFlag
	identifiers  listFlag
}

func analyzeFlags(fs *flag.FlagSet, cfg *analyzeConfig) (since, until, tz *string) {
	fs.StringVar(&cfg.format, "format", "text", "output format: text, json or html (self-contained, with plots)")
	fs.StringVar(&cfg.journalDir, "journal-dir", "", "read this journal directory instead of files")
	fs.StringVar(&cfg.backend, "journal-backend", "auto", "with --journal-dir: auto, native, sdjournal or journalctl")
	fs.Var(&cfg.units, "unit", "with --journal-dir: only this _SYSTEMD_UNIT (repeatable)")
	fs.Var(&cfg.identifiers, "identifier", "with --journal-dir: only this SYSLOG_IDENTIFIER (repeatable)")
	since = fs.String("since", "", "only samples at or after this time (RFC 3339 or 2006-01-02 15:04:05)")
	until = fs.String("until", "", "only samples before this time")
	tz = fs.String("tz", "Local", "zone of timestamps written without one (SGLang, vLLM, journalctl short)")
	fs.IntVar(&cfg.maxSeries, "max-series", model.DefaultMaxSeries, "cap on distinct series")
	return since, until, tz
}

func (c *analyzeConfig) validate(since, until, tz string) error {
	if c.format != "text" && c.format != "json" && c.format != "html" {
		return fmt.Errorf("--format %q: want text, json or html: %w", c.format, errUsage)
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return fmt.Errorf("--tz %q: %v: %w", tz, err, errUsage)
	}
	c.loc = loc
	if c.since, err = parseWhen(since, loc); err != nil {
		return fmt.Errorf("--since: %v: %w", err, errUsage)
	}
	if c.until, err = parseWhen(until, loc); err != nil {
		return fmt.Errorf("--until: %v: %w", err, errUsage)
	}
	return nil
}

func parseWhen(s string, loc *time.Location) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time (RFC 3339, or 2006-01-02 15:04:05)", s)
}

func runAnalyze(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg analyzeConfig
	since, until, tz := analyzeFlags(fs, &cfg)
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if err := cfg.validate(*since, *until, *tz); err != nil {
		return err
	}
	a := newAnalysis(cfg)
	switch {
	case cfg.journalDir != "":
		if len(paths) > 0 {
			return fmt.Errorf("--journal-dir and files: choose one: %w", errUsage)
		}
		if err := a.journal(); err != nil {
			return err
		}
	case len(paths) == 0:
		paths = []string{"-"}
	}
	for _, p := range paths {
		if err := a.file(p); err != nil {
			return err
		}
	}
	if cfg.format == "html" {
		v, _ := buildVersion()
		return exporter.WritePage(stdout, a.set.Report(), a.set.Plots(),
			exporter.PageOptions{Title: "specwatch analyze", Now: time.Now(), Version: v})
	}
	return writeReport(stdout, cfg.format, a.set.Report())
}

// journal reads a journal directory from its first entry to its last, through the same
// journal reader as the daemon (without following).
func (a *analysis) journal() error {
	backend, err := journal.ParseBackend(a.cfg.backend)
	if err != nil {
		return fmt.Errorf("--journal-backend: %v: %w", err, errUsage)
	}
	src, err := journal.Open(journal.Options{Dir: a.cfg.journalDir, Units: a.cfg.units,
		Identifiers: a.cfg.identifiers, Start: journal.Head(), NoFollow: true, Backend: backend})
	if err != nil {
		return err
	}
	defer src.Close()
	st := parse.NewStream(parse.StreamOptions{Location: a.cfg.loc, Year: time.Now().Year()})
	for {
		ok, err := src.Next(&a.entry, time.Second)
		if errors.Is(err, io.EOF) {
			a.set.CountUnreadable(src.Stats().Unreadable)
			return nil
		}
		if err != nil {
			return fmt.Errorf("journal %s: %w", a.cfg.journalDir, err)
		}
		if !ok {
			continue
		}
		a.apply(st)
	}
}

// analysis feeds inputs through parse into one model.Set.
type analysis struct {
	cfg    analyzeConfig
	parser *parse.Parser
	set    *model.Set
	entry  ingest.Entry
	sample parse.Sample
	since  int64 // Unix ns, 0: unbounded
	until  int64
}

func newAnalysis(cfg analyzeConfig) *analysis {
	a := &analysis{cfg: cfg, parser: parse.NewParser(parse.Options{}), set: model.NewSet(model.Options{MaxSeries: cfg.maxSeries})}
	if !cfg.since.IsZero() {
		a.since = cfg.since.UnixNano()
	}
	if !cfg.until.IsZero() {
		a.until = cfg.until.UnixNano()
	}
	return a
}

func (a *analysis) file(path string) error {
	rc, err := ingest.Open(path)
	if err != nil {
		return err
	}
	defer rc.Close()
	// Year-less timestamps (vLLM, journalctl short) take the file's year until the input shows one.
	year := time.Now().Year()
	if path != "-" {
		if fi, err := os.Stat(path); err == nil {
			year = fi.ModTime().Year()
		}
	}
	return a.read(rc, path, year)
}

func (a *analysis) read(r io.Reader, name string, year int) error {
	rd := ingest.NewReader(r, ingest.ReaderOptions{Name: name})
	st := parse.NewStream(parse.StreamOptions{Location: a.cfg.loc, Year: year})
	for {
		err := rd.Next(&a.entry)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			a.set.CountUnreadable(rd.Stats().Bad)
			return fmt.Errorf("reading %s: %w", name, err)
		}
		a.apply(st)
	}
	a.set.CountUnreadable(rd.Stats().Bad)
	return nil
}

// apply parses the current entry into the model, honouring --since and --until.
func (a *analysis) apply(st *parse.Stream) {
	s := &a.sample
	r := a.parser.Parse(a.entry.Message, s)
	if r != parse.Ignored {
		st.Resolve(a.entry.Time, a.entry.Host, a.entry.Unit, s)
		if (a.since != 0 && s.Time < a.since) || (a.until != 0 && s.Time >= a.until) {
			a.set.CountOutOfRange()
			return
		}
	}
	a.set.Apply(r, s)
}

func writeReport(w io.Writer, format string, r model.Report) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return writeText(w, r)
}
