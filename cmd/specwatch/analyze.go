package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/specwatch/specwatch/analyze"
	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/ingest/journal"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/report"
)

// analyzeConfig is what the analyze flags say.
type analyzeConfig struct {
	format       string
	since, until time.Time
	startTime    time.Time // --start-time: when the engine whose lines count from its start started
	loc          *time.Location
	maxSeries    int
	journalDir   string
	backend      string
	namespace    string
	units        []string
	identifiers  []string
	containers   []string
}

// analyzeFlags declares analyze's flags (demo --once shares the format's).
func analyzeFlags(c *kingpin.CmdClause, cfg *analyzeConfig) (since, until, tz, start *string) {
	c.Flag("format", "report format: text, json or html (self-contained, with plots)").Default("text").EnumVar(&cfg.format, "text", "json", "html")
	for _, fl := range []struct {
		name, help, def string
		str             *string
		list            *[]string
	}{
		{"journal.directory", "read this journal directory instead of files", "", &cfg.journalDir, nil},
		{"journal.backend", "with --journal.directory: auto, native, sdjournal or journalctl", "auto", &cfg.backend, nil},
		{"journal.namespace", "with --journal.directory: read this journal namespace's subdirectories (as journalctl --namespace; * all)", "", &cfg.namespace, nil},
		{"journal.unit", "with --journal.directory: only this _SYSTEMD_UNIT (repeatable)", "", nil, &cfg.units},
		{"journal.identifier", "with --journal.directory: only this SYSLOG_IDENTIFIER (repeatable)", "", nil, &cfg.identifiers},
		{"journal.container", "with --journal.directory: only containers whose name (else short id) matches this glob (repeatable)", "", nil, &cfg.containers},
	} {
		fc := c.Flag(fl.name, fl.help)
		if fl.def != "" {
			fc = fc.Default(fl.def)
		} else {
			fc = fc.PlaceHolder(placeholder(fl.name))
		}
		if fl.str != nil {
			fc.StringVar(fl.str)
		} else {
			fc.StringsVar(fl.list)
		}
	}
	since = c.Flag("since", "only samples at or after this time (RFC 3339, 2006-01-02 15:04:05, or relative: -2h)").PlaceHolder("TIME").String()
	until = c.Flag("until", "only samples before this time").PlaceHolder("TIME").String()
	start = c.Flag("start-time", "when the engine started, for lines stamped with the time since (llama.cpp's 0.05.071.041, --log-jsonl); default: a file's last such line is at its modification time").PlaceHolder("TIME").String()
	tz = c.Flag("timezone", "zone of timestamps written without one (SGLang, vLLM, journalctl short)").Default("Local").String()
	c.Flag("model.max-series", "cap on distinct series").Default(strconv.Itoa(model.DefaultMaxSeries)).IntVar(&cfg.maxSeries)
	return since, until, tz, start
}

func (c *analyzeConfig) validate(since, until, tz, start string) error {
	if c.format != "text" && c.format != "json" && c.format != "html" {
		return fmt.Errorf("--format %q: want text, json or html: %w", c.format, errUsage)
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return fmt.Errorf("--timezone %q: %v: %w", tz, err, errUsage)
	}
	c.loc = loc
	if c.since, err = config.ParseWhen(since, loc); err != nil {
		return fmt.Errorf("--since: %v: %w", err, errUsage)
	}
	if c.until, err = config.ParseWhen(until, loc); err != nil {
		return fmt.Errorf("--until: %v: %w", err, errUsage)
	}
	if c.startTime, err = config.ParseWhen(start, loc); err != nil {
		return fmt.Errorf("--start-time: %v: %w", err, errUsage)
	}
	if !c.startTime.IsZero() && c.journalDir != "" {
		return fmt.Errorf("--start-time with --journal.directory: journal entries carry their own time; --start-time anchors raw logs: %w", errUsage)
	}
	return nil
}

func defineAnalyze(c *kingpin.CmdClause, stderr io.Writer) action {
	var cfg analyzeConfig
	since, until, tz, start := analyzeFlags(c, &cfg)
	paths := c.Arg("file", "log files (plain, gzip, zstd, xz, lz4; Docker json-file, CRI) or - for standard input; none: standard input").Strings()
	return func(_ context.Context, stdout, stderr io.Writer) error {
		return runAnalyze(cfg, *since, *until, *tz, *start, *paths, stdout, stderr)
	}
}

func runAnalyze(cfg analyzeConfig, since, until, tz, start string, paths []string, stdout, stderr io.Writer) error {
	if cfg.maxSeries <= 0 {
		return fmt.Errorf("--model.max-series %d: want at least 1: %w", cfg.maxSeries, errUsage)
	}
	if err := cfg.validate(since, until, tz, start); err != nil {
		return err
	}
	a := cfg.analysis(stderr)
	switch {
	case cfg.journalDir != "":
		if len(paths) > 0 {
			return fmt.Errorf("--journal.directory and files: choose one: %w", errUsage)
		}
		backend, err := journal.ParseBackend(cfg.backend)
		if err != nil {
			return fmt.Errorf("--journal.backend: %v: %w", err, errUsage)
		}
		if err := a.Journal(journal.Options{Dir: cfg.journalDir, Namespace: cfg.namespace, Units: cfg.units,
			Identifiers: cfg.identifiers, Containers: cfg.containers, Backend: backend}); err != nil {
			return err
		}
	case len(paths) == 0:
		paths = []string{"-"}
	}
	failed, err := a.Files(paths, func(err error) { fmt.Fprintf(stderr, "specwatch analyze: %v (skipped)\n", err) })
	if err != nil {
		return err
	}
	v, _ := buildVersion()
	if err := a.Write(stdout, cfg.format, report.PageOptions{Title: "specwatch analyze", Now: time.Now(), Version: v}); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d inputs could not be read (named above); the report covers the others", failed, len(paths))
	}
	return nil
}

// analysis is the analysis the flags describe; its notes go to stderr.
func (c *analyzeConfig) analysis(stderr io.Writer) *analyze.Analysis {
	return analyze.New(analyze.Options{MaxSeries: c.maxSeries, Location: c.loc, Since: c.since, Until: c.until,
		StartTime: c.startTime, Note: func(msg string) { fmt.Fprintf(stderr, "specwatch analyze: %s\n", msg) }})
}
