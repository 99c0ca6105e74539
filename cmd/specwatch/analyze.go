package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/specwatch/specwatch/analyze"
	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/internal/buildinfo"
	"github.com/specwatch/specwatch/report"
)

func defineAnalyze(c *kingpin.CmdClause, _ io.Writer) action {
	var f config.Analyze
	addFlags(c, f.Flags(), nil)
	paths := c.Arg("file", "log files (plain, gzip, zstd, xz, lz4; Docker json-file, CRI) or - for standard input; none: standard input").Strings()
	return func(_ context.Context, stdout, stderr io.Writer) error { return runAnalyze(&f, *paths, stdout, stderr) }
}

func runAnalyze(f *config.Analyze, paths []string, stdout, stderr io.Writer) error {
	in, err := f.Resolve(paths)
	if err != nil {
		return err
	}
	a := analyze.New(analyze.Options{MaxSeries: f.MaxSeries, Location: in.Location, Since: in.Since, Until: in.Until,
		StartTime: in.StartTime, Labels: in.Labels, Note: func(msg string) { fmt.Fprintf(stderr, "specwatch analyze: %s\n", msg) }})
	if in.Journal != nil {
		if err := a.Journal(*in.Journal); err != nil {
			return err
		}
	} else if len(paths) == 0 {
		paths = []string{"-"}
	}
	failed, err := a.Files(paths, func(err error) { fmt.Fprintf(stderr, "specwatch analyze: %v (skipped)\n", err) })
	if err != nil {
		return err
	}
	v, _ := buildinfo.Version()
	if err := a.Write(stdout, f.Format, report.PageOptions{Title: "specwatch analyze", Now: time.Now(), Version: v}); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d inputs could not be read (named above); the report covers the others", failed, len(paths))
	}
	return nil
}
