package main

import (
	"context"
	"fmt"
	"io"

	"github.com/specwatch/specwatch/config"
)

// runCheckConfig validates a config file the way `run` and SIGHUP would, so that a deploy can
// check before it restarts anything.
func runCheckConfig(_ context.Context, args []string, stdout, _ io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("want exactly one FILE: %w", errUsage)
	}
	if _, err := config.Load(args[0]); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: OK\n", args[0])
	return nil
}
