package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/alecthomas/kingpin/v2"
	"github.com/specwatch/specwatch/internal/buildinfo"
)

func defineVersion(*kingpin.CmdClause, io.Writer) action {
	return func(_ context.Context, stdout, _ io.Writer) error {
		fmt.Fprintf(stdout, "%s %s %s/%s\n", buildinfo.Line(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return nil
	}
}
