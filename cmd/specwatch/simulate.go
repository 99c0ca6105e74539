package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/specwatch/specwatch/sim"
)

// runSimulate writes a preset scenario's log, for testing alert pipelines and dashboards
// against known ground truth.
func runSimulate(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	preset := fs.String("preset", "demo", "scenario: context-growth, healthy-day, demo, seed-sweep, mixed")
	seed := fs.Uint64("seed", 1, "random seed (same seed, same log)")
	format := fs.String("format", "", "output shape: raw, cat, docker, short, short-iso, short-precise, json, export (default: the preset's)")
	lines := fs.Int("lines", 0, "stop after this many lines (0: the preset's length)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sc, err := sim.Preset(*preset, *seed)
	if err != nil {
		return fmt.Errorf("--preset: %v: %w", err, errUsage)
	}
	if *format != "" {
		f, err := sim.ParseFormat(*format)
		if err != nil {
			return fmt.Errorf("--format: %v: %w", err, errUsage)
		}
		sc.Format = f
	}
	if *lines > 0 {
		sc.MaxLines = *lines
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	if _, err := sim.Generate(sc, w, nil); err != nil {
		return err
	}
	return w.Flush()
}
