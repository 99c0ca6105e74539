package testpodman

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testharness"
)

// BuildStatic builds specwatch with CGO_ENABLED=0 (the binary an image FROM scratch can run:
// no libc, no libsystemd; the journal is read by the native reader) into the test's temporary
// directory and returns its path.
func BuildStatic(tb testing.TB) string {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "specwatch")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, "./cmd/specwatch")
	cmd.Dir = testharness.RepoRoot(tb)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("testpodman: CGO_ENABLED=0 go build ./cmd/specwatch: %v\n%s", err, b)
	}
	return out
}
