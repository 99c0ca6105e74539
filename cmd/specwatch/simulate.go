package main

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/alecthomas/kingpin/v2"
	"github.com/specwatch/specwatch/sim"
)

// defineSimulate: write a preset scenario's log, for testing alert pipelines and dashboards
// against known ground truth.
func defineSimulate(c *kingpin.CmdClause, _ io.Writer) action {
	preset := c.Flag("preset", "scenario: context-growth, healthy-day, demo, incidents, seed-sweep, mixed, chatty").Default("demo").String()
	seed := c.Flag("seed", "random seed (same seed, same log)").Default("1").Uint64()
	format := c.Flag("format", "output shape: raw, cat, docker, short, short-iso, short-precise, json, export (default: the preset's)").String()
	lines := new(int)
	c.Flag("lines", "stop after this many lines (0: the preset's length)").Default("0").
		Action(func(*kingpin.ParseContext) error {
			if *lines < 0 {
				return fmt.Errorf("--lines %d: must not be negative", *lines)
			}
			return nil
		}).IntVar(lines)
	return func(_ context.Context, stdout, _ io.Writer) error {
		return runSimulate(*preset, *seed, *format, *lines, stdout)
	}
}

func runSimulate(preset string, seed uint64, format string, lines int, stdout io.Writer) error {
	sc, err := sim.Preset(preset, seed)
	if err != nil {
		return fmt.Errorf("--preset: %v: %w", err, errUsage)
	}
	if format != "" {
		f, err := sim.ParseFormat(format)
		if err != nil {
			return fmt.Errorf("--format: %v: %w", err, errUsage)
		}
		sc.Format = f
	}
	if lines > 0 {
		sc.MaxLines = lines
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	if _, err := sim.Generate(sc, w, nil); err != nil {
		return err
	}
	return w.Flush()
}
