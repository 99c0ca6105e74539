// Package buildinfo says which build of specwatch is running.
package buildinfo

import "runtime/debug"

// version and revision are set at build time with -ldflags "-X
// github.com/specwatch/specwatch/internal/buildinfo.version=... -X ….revision=..."
// (scripts/package.sh stamps both from git); otherwise the module version and the VCS revision
// the Go toolchain records are used. The toolchain records none for a build outside a git work
// tree (an unpacked source tarball, a -buildvcs=false build).
var version, revision = "", ""

// Version is the build's version ("dev" when nothing says one) and its VCS revision ("" when
// unknown).
func Version() (v, rev string) {
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

// Line is "specwatch VERSION (REVISION)", as --version prints it.
func Line() string {
	v, rev := Version()
	if rev != "" {
		v += " (" + rev + ")"
	}
	return "specwatch " + v
}
