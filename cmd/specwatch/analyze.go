package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/specwatch/specwatch/analyze"
	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/internal/buildinfo"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/report"
)

func defineAnalyze(c *kingpin.CmdClause, _ io.Writer) action {
	var f config.Analyze
	config.AddFlags(c, f.Flags(), nil)
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
	color, err := report.UseColor(f.Color, stdout, os.Getenv)
	if err != nil {
		return fmt.Errorf("--color: %w", err)
	}
	if err := a.Write(stdout, f.Format, report.PageOptions{Title: "specwatch analyze", Now: time.Now(), Version: v, Color: color}); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d inputs could not be read (named above); the report covers the others", failed, len(paths))
	}
	return noEngineLine(a.Report().Input)
}

// noEngineLine fails an analysis that found nothing to diagnose, so that a script does not
// take an empty report for a healthy one (exit status 3), and says what was read instead.
func noEngineLine(in model.InputCounts) error {
	if in.Samples > 0 {
		return nil
	}
	var why []string
	if in.Malformed > 0 {
		why = append(why, fmt.Sprintf("%d malformed: engine lines this version cannot parse, docs/formats.md", in.Malformed))
	}
	if in.OutOfRange > 0 {
		why = append(why, fmt.Sprintf("%d outside --since/--until", in.OutOfRange))
	}
	if in.Unreadable > 0 {
		why = append(why, fmt.Sprintf("%d records unreadable", in.Unreadable))
	}
	msg := fmt.Sprintf("%d lines read", in.Lines)
	if in.Lines == 1 {
		msg = "1 line read"
	}
	if len(why) > 0 {
		msg += " (" + strings.Join(why, "; ") + ")"
	}
	return fmt.Errorf("%w in the input: %s; the report is empty (exit status %d)", errNoEngineLine, msg, exitNoEngineLine)
}
