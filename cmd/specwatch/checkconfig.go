package main

import (
	"context"
	"fmt"
	"io"

	"github.com/alecthomas/kingpin/v2"
	"github.com/specwatch/specwatch/config"
)

// defineCheckConfig: validate a config file the way `run` and SIGHUP would, so that a deploy
// can check before it restarts anything.
func defineCheckConfig(c *kingpin.CmdClause, _ io.Writer) action {
	file := c.Arg("file", "the configuration file").Required().String()
	return func(_ context.Context, stdout, _ io.Writer) error {
		if _, err := config.Load(*file); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: OK\n", *file)
		return nil
	}
}
