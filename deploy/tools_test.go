package deploy

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

// repoRoot is the module root: tests run in deploy/.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test source")
	}
	return filepath.Dir(filepath.Dir(file))
}

// deployPath is a path under deploy/.
func deployPath(t testing.TB, parts ...string) string {
	return filepath.Join(append([]string{repoRoot(t), "deploy"}, parts...)...)
}

// needTool returns the path of a command or skips the test, loudly, naming the Debian package
// that provides it (scripts/deps.sh installs every one of them).
func needTool(t testing.TB, name, debianPackage string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("SKIP: %s not found; install the Debian package %q (scripts/deps.sh does) to run this test", name, debianPackage)
	}
	return p
}

// result is what a finished command produced.
type result struct {
	stdout, stderr string
	code           int
	err            error
}

func (r result) output() string { return strings.TrimSpace(r.stdout + "\n" + r.stderr) }

// runCmd runs a command with a timeout and returns its output and exit code; err is set only
// when it could not run or timed out.
func runCmd(t testing.TB, timeout time.Duration, dir string, env []string, name string, args ...string) result {
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
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if cmd.ProcessState != nil {
		r.code = cmd.ProcessState.ExitCode()
	}
	if ctx.Err() != nil {
		r.err = ctx.Err()
	} else if _, ok := err.(*exec.ExitError); !ok && err != nil {
		r.err = err
	}
	return r
}

// specwatchBinary builds ./cmd/specwatch once per test run (the same flags as
// scripts/package.sh, so the package test's build reuses the cache) and returns its path.
var specwatchBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "specwatch-deploy-bin-")
	if err != nil {
		return "", err
	}
	binDir = dir
	out := filepath.Join(dir, "specwatch")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("building specwatch: %w", err)
	}
	cmd := exec.CommandContext(ctx, goCmd, "build", "-trimpath",
		"-ldflags", "-X main.version=0.0.0~deploytest", "-o", out, "./cmd/specwatch")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", &buildError{out: string(b), err: err}
	}
	return out, nil
})

var binDir string

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string {
	return "go build ./cmd/specwatch: " + e.err.Error() + "\n" + e.out
}

func buildSpecwatch(t testing.TB) string {
	t.Helper()
	p, err := specwatchBinary()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// execLookPath is exec.LookPath, for optional tools.
func execLookPath(name string) (string, error) { return exec.LookPath(name) }
