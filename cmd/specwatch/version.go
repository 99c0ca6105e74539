package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version and revision are set at build time with -ldflags "-X main.version=... -X
// main.revision=..." (scripts/package.sh stamps both from git); otherwise the module version
// and the VCS revision the Go toolchain records are used. The toolchain records none for a
// build outside a git work tree (an unpacked source tarball, a -buildvcs=false build), where
// specwatch_build_info said revision="unknown".
var version, revision = "", ""

func buildVersion() (v, rev string) {
	v, rev = version, revision
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && rev == "" {
				rev = s.Value
			}
		}
	}
	if v == "" {
		v = "dev"
	}
	return v, rev
}

func runVersion(_ context.Context, _ []string, stdout, _ io.Writer) error {
	v, rev := buildVersion()
	if rev != "" {
		v += " (" + rev + ")"
	}
	fmt.Fprintf(stdout, "specwatch %s %s %s/%s\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
