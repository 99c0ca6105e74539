package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// TestVersionFromGitTag: a plain `go build` in a clone says the version of git: the tag on the
// commit, a pseudo-version after it, +dirty with changes, and the revision; nothing passes
// -ldflags. The clone is a throwaway copy of this work tree (committed there), so the tag
// never reaches the repository.
func TestVersionFromGitTag(t *testing.T) {
	if testing.Short() {
		t.Skip("builds specwatch three times in a clone")
	}
	git := testharness.NeedTool(t, "git", "git")
	root := testharness.RepoRoot(t)
	clone := filepath.Join(t.TempDir(), "specwatch")
	env := []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}
	run := func(dir string, name string, args ...string) string {
		t.Helper()
		r := testharness.RunCmd(t, 5*time.Minute, dir, env, name, args...)
		if r.Err != nil || r.Code != 0 {
			t.Fatalf("%s %v: exit %d %v\n%s", name, args, r.Code, r.Err, r.Output())
		}
		return strings.TrimSpace(r.Stdout)
	}
	run("", git, "clone", "--quiet", "--shared", root, clone)
	// The work tree as it is, uncommitted changes included, committed in the clone.
	for _, f := range strings.Split(run(root, git, "ls-files", "--modified", "--others", "--exclude-standard"), "\n") {
		if f == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue // deleted
		}
		os.MkdirAll(filepath.Dir(filepath.Join(clone, f)), 0o755)
		if err := os.WriteFile(filepath.Join(clone, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(clone, git, "add", "-A")
	run(clone, git, "commit", "--quiet", "--allow-empty", "-m", "the work tree")
	run(clone, git, "tag", "v0.9.7") // lightweight; a v0 or v1 tag (v2 and later need a /v2 module path)
	build := func() string {
		t.Helper()
		bin := filepath.Join(t.TempDir(), "specwatch")
		// The machine's go env may say -buildvcs=false; a plain build stamps by default.
		r := testharness.RunCmd(t, 10*time.Minute, clone, append(env, "GOFLAGS=-buildvcs=auto", "CGO_ENABLED=0"), "go", "build", "-trimpath", "-o", bin, "./cmd/specwatch")
		if r.Err != nil || r.Code != 0 {
			t.Fatalf("go build in the clone: %s", r.Output())
		}
		return run("", bin, "--version")
	}
	rev := run(clone, git, "rev-parse", "HEAD")
	if got, want := build(), "specwatch v0.9.7 ("+rev+")"; got != want {
		t.Errorf("on the tag: --version %q, want %q", got, want)
	}
	if err := os.WriteFile(filepath.Join(clone, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := build(), "specwatch v0.9.7+dirty ("+rev+")"; got != want {
		t.Errorf("on the tag, changed: --version %q, want %q", got, want)
	}
	run(clone, git, "commit", "--quiet", "-am", "after the tag")
	rev = run(clone, git, "rev-parse", "HEAD")
	if got := build(); !strings.HasPrefix(got, "specwatch v0.9.8-0.") || !strings.HasSuffix(got, "-"+rev[:12]+" ("+rev+")") {
		t.Errorf("after the tag: --version %q, want the pseudo-version v0.9.8-0.DATE-%s (%s)", got, rev[:12], rev)
	}
}
