package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=..."; otherwise the module
// version or the VCS revision recorded by the Go toolchain is used.
var version = ""

func buildVersion() (v, revision string) {
	v = version
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				revision = s.Value
			}
		}
	}
	if v == "" {
		v = "dev"
	}
	return v, revision
}

func runVersion(_ context.Context, _ []string, stdout, _ io.Writer) error {
	v, rev := buildVersion()
	if rev != "" {
		v += " (" + rev + ")"
	}
	fmt.Fprintf(stdout, "specwatch %s %s %s/%s\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
