package demo

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/analyze"
	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/daemon"
	"github.com/specwatch/specwatch/pipeline"
	"github.com/specwatch/specwatch/report"
)

// RunOptions are what `specwatch demo` was asked for; cmd checks them.
type RunOptions struct {
	Scenario Scenario
	// Speed is recorded seconds per second; 0 is as fast as possible, which a scenario
	// stamped with the wall clock cannot do.
	Speed             float64
	Listen            string
	Log               zerolog.Logger
	Version, Revision string
	Out               io.Writer // the banner and the addresses
	Hint              string    // printed after the addresses: how to stop
}

// Run serves the daemon on the scenario's replay until ctx ends.
func Run(ctx context.Context, o RunOptions) error {
	sc := o.Scenario
	cfg := config.Default()
	cfg.Listen = o.Listen
	if !sc.WallClock {
		// The replay's times are the simulation's, not the clock's: against the clock every
		// series would look silent for days and leave /metrics.
		cfg.Model.ExpireAfter = 0
	}
	if sc.Scrape {
		stopMetrics, err := StartMetrics(&cfg, time.Now)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	if sc.TRTLLM {
		stopTRT, err := startTRTLLM(&cfg)
		if err != nil {
			return err
		}
		defer stopTRT()
	}
	var passes *pacer
	if sc.Passes {
		p, stopPasses, err := startPasses(&cfg)
		if err != nil {
			return err
		}
		defer stopPasses()
		passes = p
	}
	d, err := daemon.New(daemon.Options{Config: cfg, Log: o.Log, Live: sc.WallClock, Title: "specwatch demo", Version: o.Version, Revision: o.Revision})
	if err != nil {
		return err
	}
	defer d.Close()
	base := "http://" + d.Addr()
	pace := fmt.Sprintf("at %gx", o.Speed)
	switch o.Speed {
	case 0:
		pace = "as fast as possible"
	case 1:
		pace = "in real time"
	}
	fmt.Fprintln(o.Out, sc.Banner(pace))
	fmt.Fprintf(o.Out, "  status page  %s/\n  metrics      %s/metrics\n  report JSON  %s/api/v1/report\n%s\n", base, base, base, o.Hint)
	return d.Serve(ctx, func(ctx context.Context) error {
		src := sc.source(o.Speed, time.Now, sleepCtx(ctx), passes)
		defer src.Close()
		inputs := []pipeline.Input{{Source: src}}
		if passes != nil {
			go passes.run(ctx, o.Speed, time.Now, sleepCtx(ctx))
			fwd, stopFwd, err := d.StartForwardPass(ctx)
			if err != nil {
				return err
			}
			defer stopFwd()
			inputs = append(inputs, pipeline.Input{Source: fwd})
		}
		if sc.Scrape || sc.TRTLLM {
			scrapes, stopScrape, err := d.StartScrape(ctx)
			if err != nil {
				return err
			}
			defer stopScrape()
			if scrapes != nil {
				inputs = append(inputs, pipeline.Input{Source: scrapes})
			}
		}
		return d.Pipeline(time.UTC, 2026).Follow(ctx, inputs...)
	})
}

// Once analyses one pass of the scenario, as `analyze` would its log, and writes the report in
// format ("text" or "json"); note receives analyze's notes.
func Once(sc Scenario, format string, w io.Writer, note func(string)) error {
	src := sc.Log()
	defer src.Close()
	a := analyze.New(analyze.Options{Location: time.UTC, Note: note})
	if err := a.Read(src, "demo", 2026); err != nil {
		return err
	}
	return a.Write(w, format, report.PageOptions{})
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
