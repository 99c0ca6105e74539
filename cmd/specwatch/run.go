package main

import (
	"context"
	"io"

	"github.com/alecthomas/kingpin/v2"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/daemon"
	"github.com/specwatch/specwatch/internal/buildinfo"
)

// defineRun declares run's flags; the action is the daemon (daemon.RunProcess): follow the
// journal exactly once, forever.
func defineRun(c *kingpin.CmdClause, _ io.Writer) action {
	f := &config.Overrides{Given: map[string]bool{}}
	config.AddFlags(c, f.Flags(), f.Given)
	return func(ctx context.Context, _, stderr io.Writer) error {
		v, rev := buildinfo.Version()
		return daemon.RunProcess(ctx, daemon.ProcessOptions{Load: f.Load, Stderr: stderr, Version: v, Revision: rev})
	}
}
