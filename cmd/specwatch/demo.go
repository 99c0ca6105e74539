package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/alecthomas/kingpin/v2"
	"github.com/specwatch/specwatch/daemon"
	"github.com/specwatch/specwatch/demo"
	"github.com/specwatch/specwatch/internal/buildinfo"
	"github.com/specwatch/specwatch/internal/cliargs"
	"github.com/specwatch/specwatch/internal/cmdhelp"
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
	cmdhelp.EnumVar(c.Flag("scenario", "what to replay: "+strings.Join(demo.Names(), ", ")+" (docs/configuration.md)").Default(demo.Scenarios[0].Name), "scenario", &o.scenario, demo.Names()...)
	c.Flag("once", "analyze the scenario's data once (one loop), print the report and exit").BoolVar(&o.once)
	cmdhelp.EnumVar(c.Flag("format", "with --once: text or json").Default("text"), "format", &o.format, "text", "json")
	c.Flag("web.listen-address", "address of the demo's status page, /metrics and report API").Default("127.0.0.1:9877").StringVar(&o.listen)
	c.Flag("speed", "replay speed: recorded seconds per second (default: "+demoSpeedHelp()+"; 0: as fast as possible, tour only)").
		PlaceHolder("X").Action(func(ctx *kingpin.ParseContext) error {
		o.speedGiven = true
		return cliargs.NonNegative("speed", &o.speed)(ctx)
	}).Float64Var(&o.speed)
	return func(ctx context.Context, stdout, stderr io.Writer) error {
		return runDemo(ctx, *o, stdout, stderr)
	}
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
		return demo.Once(sc, o.format, stdout, func(msg string) { fmt.Fprintf(stderr, "specwatch demo: %s\n", msg) })
	}
	speed := sc.Speed
	if o.speedGiven {
		speed = o.speed
	}
	if speed == 0 && sc.WallClock {
		return fmt.Errorf("--speed 0 with --scenario %s: its lines are stamped with the wall clock as they are replayed, so it needs a pace (1: real time): %w", sc.Name, errUsage)
	}
	log, _, err := daemon.NewLogger("info", "auto", stderr)
	if err != nil {
		return err
	}
	v, rev := buildinfo.Version()
	return demo.Run(ctx, demo.RunOptions{Scenario: sc, Speed: speed, Listen: o.listen, Log: log, Version: v, Revision: rev,
		Out: stdout, Hint: daemon.StopHint()})
}
