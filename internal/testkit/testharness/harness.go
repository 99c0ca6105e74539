//go:build linux

// Package testharness holds what the tests of deploy/ and test/ share: the repository's
// paths, tools found or skipped, commands with a timeout, the specwatch binary built once per
// test binary, Prometheus, Alertmanager and VictoriaMetrics on loopback, a supervised
// `specwatch run`, and the shipped dashboards' queries. Every function takes the test's
// testing.TB and registers its own cleanup; nothing here needs resetting between tests. Linux
// only, like the tests (process groups with a parent-death signal, /proc).
package testharness

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// RepoRoot is the module root (this file is internal/testkit/testharness/harness.go).
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test source")
	}
	return root(file)
}

func root(file string) string { return filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(file)))) }

// DeployPath is a path under deploy/.
func DeployPath(t testing.TB, parts ...string) string {
	return filepath.Join(append([]string{RepoRoot(t), "deploy"}, parts...)...)
}

// ReadUnit is deploy/specwatch.service.
func ReadUnit(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(DeployPath(t, "specwatch.service"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// RuleFiles are the rule files deploy/prometheus/ ships.
func RuleFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(DeployPath(t, "prometheus", "*.yml"))
	if err != nil || len(files) < 2 {
		t.Fatalf("rule files in deploy/prometheus: %v %v", files, err)
	}
	return files
}

// NeedTool returns the path of a command or skips the test, loudly, naming the Debian package
// that provides it (scripts/deps.sh installs every one of them).
func NeedTool(t testing.TB, name, debianPackage string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("SKIP: %s not found; install the Debian package %q (scripts/deps.sh does) to run this test", name, debianPackage)
	}
	return p
}

// Result is what a finished command produced.
type Result struct {
	Stdout, Stderr string
	Code           int
	Err            error
}

// Output is stdout and stderr, trimmed.
func (r Result) Output() string { return strings.TrimSpace(r.Stdout + "\n" + r.Stderr) }

// RunCmd runs a command with a timeout and returns its output and exit code; Err is set only
// when it could not run or timed out.
func RunCmd(t testing.TB, timeout time.Duration, dir string, env []string, name string, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	if cmd.ProcessState != nil {
		r.Code = cmd.ProcessState.ExitCode()
	}
	if ctx.Err() != nil {
		r.Err = ctx.Err()
	} else if _, ok := err.(*exec.ExitError); !ok && err != nil {
		r.Err = err
	}
	return r
}

// specwatchBinary builds ./cmd/specwatch once per test run (the same flags as
// scripts/package.sh, so the package test's build reuses the cache) and returns its path.
var specwatchBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "specwatch-test-bin-")
	if err != nil {
		return "", err
	}
	binDir = dir
	out := filepath.Join(dir, "specwatch")
	return out, goBuild(out, "CGO_ENABLED=1", "-ldflags", "-X github.com/specwatch/specwatch/internal/buildinfo.version=0.0.0~deploytest")
})

// BuildStatic builds specwatch with CGO_ENABLED=0 (the binary an image FROM scratch can run:
// no libc, no libsystemd; the journal is read by the native reader) into the test's temporary
// directory and returns its path.
func BuildStatic(tb testing.TB) string {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "specwatch")
	if err := goBuild(out, "CGO_ENABLED=0"); err != nil {
		tb.Fatal(err)
	}
	return out
}

// goBuild builds ./cmd/specwatch to out with -trimpath, env added to the environment. It has
// no deadline of its own but the test binary's -timeout: on a fresh machine the first build
// compiles every dependency while the race-enabled test builds share its cores, and a
// 5-minute deadline killed it there.
func goBuild(out, env string, flags ...string) error {
	_, file, _, _ := runtime.Caller(0)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("building specwatch: %w", err)
	}
	args := append(append([]string{"build", "-trimpath"}, flags...), "-o", out, "./cmd/specwatch")
	cmd := exec.Command(goCmd, args...)
	cmd.Dir = root(file)
	cmd.Env = append(os.Environ(), env)
	if b, err := cmd.CombinedOutput(); err != nil {
		return &buildError{out: string(b), err: err}
	}
	return nil
}

var binDir string

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string {
	return "go build ./cmd/specwatch: " + e.err.Error() + "\n" + e.out
}

// BuildSpecwatch returns the specwatch binary, built on the first call of the test binary
// (Main removes it at the end).
func BuildSpecwatch(t testing.TB) string {
	t.Helper()
	p, err := specwatchBinary()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Main runs a package's tests and then removes the binary BuildSpecwatch built:
//
//	func TestMain(m *testing.M) { os.Exit(testharness.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	return code
}
