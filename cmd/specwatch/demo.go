package main

import (
	"bytes"
	"compress/gzip"
	"context"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"time"
)

// demoLog is simulated engine output (see demodata/README.md for how it is made), embedded so
// that a newcomer sees a diagnosis with no inference host at hand.
//
//go:embed demodata/demo.log.gz
var demoLog []byte

func runDemo(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text or json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := analyzeConfig{format: *format, loc: time.UTC}
	if cfg.format != "text" && cfg.format != "json" {
		return fmt.Errorf("--format %q: want text or json: %w", cfg.format, errUsage)
	}
	zr, err := gzip.NewReader(bytes.NewReader(demoLog))
	if err != nil {
		return fmt.Errorf("embedded demo data: %w", err)
	}
	a := newAnalysis(cfg)
	if err := a.read(zr, "demo.log", 2026); err != nil {
		return err
	}
	return writeReport(stdout, cfg.format, a.set.Report())
}
