package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/daemon"
	"github.com/specwatch/specwatch/demo"
	"github.com/specwatch/specwatch/pipeline"
)

// demoOptions are demo's flags.
type demoOptions struct {
	scenario string
	once     bool
	format   string
	listen   string
	// speed is --speed; speedGiven says whether the command line set it (else the scenario's
	// default applies).
	speed      float64
	speedGiven bool
}

func defineDemo(c *kingpin.CmdClause, _ io.Writer) action {
	o := &demoOptions{}
	c.Flag("scenario", "what to replay: "+demoScenarioHelp()).Default(demo.Scenarios[0].Name).EnumVar(&o.scenario, demo.Names()...)
	c.Flag("once", "analyze the scenario's data once (one loop), print the report and exit").BoolVar(&o.once)
	c.Flag("format", "with --once: text or json").Default("text").EnumVar(&o.format, "text", "json")
	c.Flag("web.listen-address", "address of the demo's status page, /metrics and report API").Default("127.0.0.1:9877").StringVar(&o.listen)
	c.Flag("speed", "replay speed: recorded seconds per second (default: "+demoSpeedHelp()+"; 0: as fast as possible, tour only)").
		PlaceHolder("X").Action(func(ctx *kingpin.ParseContext) error {
		o.speedGiven = true
		return nonNegative("speed", &o.speed)(ctx)
	}).Float64Var(&o.speed)
	return func(ctx context.Context, stdout, stderr io.Writer) error {
		return runDemo(ctx, *o, stdout, stderr)
	}
}

func demoScenarioHelp() string {
	var b strings.Builder
	for i, s := range demo.Scenarios {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.Name)
	}
	b.WriteString(" (docs/configuration.md)")
	return b.String()
}

func demoSpeedHelp() string {
	var parts []string
	for _, s := range demo.Scenarios {
		parts = append(parts, strconv.FormatFloat(s.Speed, 'g', -1, 64)+" for "+s.Name)
	}
	return strings.Join(parts, ", ")
}

func runDemo(ctx context.Context, o demoOptions, stdout, stderr io.Writer) error {
	sc, ok := demo.Find(o.scenario)
	if !ok {
		return fmt.Errorf("--scenario %q: want one of %v: %w", o.scenario, demo.Names(), errUsage)
	}
	if o.once {
		return demoOnce(sc, o.format, stdout, stderr)
	}
	speed := sc.Speed
	if o.speedGiven {
		speed = o.speed
	}
	if speed == 0 && sc.WallClock {
		return fmt.Errorf("--speed 0 with --scenario %s: its lines are stamped with the wall clock as they are replayed, so it needs a pace (1: real time): %w", sc.Name, errUsage)
	}
	cfg := config.Default()
	cfg.Listen = o.listen
	if !sc.WallClock {
		// The replay's times are the simulation's, not the clock's: against the clock every
		// series would look silent for days and leave /metrics.
		cfg.Model.ExpireAfter = 0
	}
	log, _, err := newLogger("info", "auto", stderr)
	if err != nil {
		return err
	}
	if sc.Scrape {
		stopMetrics, err := demo.StartMetrics(&cfg, time.Now)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	v, rev := buildVersion()
	d, err := daemon.New(daemon.Options{Config: cfg, Log: log, Live: sc.WallClock, Title: "specwatch demo", Version: v, Revision: rev})
	if err != nil {
		return err
	}
	defer d.Close()
	base := "http://" + d.Addr()
	pace := fmt.Sprintf("at %gx", speed)
	switch {
	case speed == 0:
		pace = "as fast as possible"
	case speed == 1:
		pace = "in real time"
	}
	fmt.Fprintln(stdout, sc.Banner(pace))
	fmt.Fprintf(stdout, "  status page  %s/\n  metrics      %s/metrics\n  report JSON  %s/api/v1/report\n%s\n", base, base, base, exitOnSignalHint())
	return d.Serve(ctx, func(ctx context.Context) error {
		if sc.Scrape {
			stopScrape, err := d.StartScrape(ctx)
			if err != nil {
				return err
			}
			defer stopScrape()
		}
		src, closer := sc.Source(speed, time.Now, sleepCtx(ctx))
		defer closer.Close()
		return d.Pipeline(time.UTC, 2026).Follow(ctx, src, pipeline.DiscardCursor{})
	})
}

// demoOnce analyses one pass of the scenario, as `analyze` would its log.
func demoOnce(sc demo.Scenario, format string, stdout, stderr io.Writer) error {
	cfg := analyzeConfig{format: format, loc: time.UTC}
	if cfg.format != "text" && cfg.format != "json" {
		return fmt.Errorf("--format %q: want text or json: %w", cfg.format, errUsage)
	}
	src := sc.Log()
	defer src.Close()
	a := cfg.analysis(stderr)
	if err := a.Read(src, "demo", 2026); err != nil {
		return err
	}
	return writeReport(stdout, cfg.format, a.Report())
}

// sleepCtx sleeps, but no longer than ctx lives.
func sleepCtx(ctx context.Context) func(time.Duration) {
	return func(d time.Duration) {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
}
