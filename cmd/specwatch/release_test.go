package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// TestReleaseTarball runs scripts/release.sh for one target (linux-amd64) and checks the
// tarball's files, that its binary says the release's version, the release notes, and that
// SHA256SUMS holds the artefacts' digests. (`make release` builds every target the same way.)
func TestReleaseTarball(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a release tarball")
	}
	root := testharness.RepoRoot(t)
	dist := t.TempDir()
	// The latest release in the CHANGELOG: its section is the notes.
	changelog, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?ms)^## \[(\d+\.\d+\.\d+)\][^\n]*\n(.*?)(?:^## \[|\z)`).FindSubmatch(changelog)
	if m == nil {
		t.Fatal("CHANGELOG.md has no released version's section")
	}
	version, section := string(m[1]), strings.TrimSpace(string(m[2]))
	r := testharness.RunCmd(t, 10*time.Minute, root, []string{"VERSION=" + version, "DIST=" + dist, "ALLOW_DIRTY=1"}, filepath.Join(root, "scripts", "release.sh"), "linux-amd64")
	if r.Err != nil || r.Code != 0 {
		t.Fatalf("scripts/release.sh linux-amd64: exit %d %v\n%s", r.Code, r.Err, r.Output())
	}
	name := "specwatch_" + version + "_linux_amd64"
	unpacked := t.TempDir()
	files := untar(t, filepath.Join(dist, name+".tar.gz"), unpacked)
	want := []string{"CHANGELOG.md", "LICENSE", "README.md", "completions/_specwatch", "completions/specwatch.bash", "completions/specwatch.fish", "specwatch", "specwatch.1"}
	for i := range want {
		want[i] = name + "/" + want[i]
	}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("tarball holds %v, want %v", files, want)
	}
	out, err := exec.Command(filepath.Join(unpacked, name, "specwatch"), "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "specwatch v"+version+" (") {
		t.Errorf("the tarball's specwatch --version: %q %v", out, err)
	}
	if man, _ := os.ReadFile(filepath.Join(unpacked, name, "specwatch.1")); !strings.Contains(string(man), `.SH "EXIT STATUS"`) {
		t.Errorf("the tarball's man page lacks EXIT STATUS")
	}
	notes, _ := os.ReadFile(filepath.Join(dist, "RELEASE_NOTES.md"))
	if want := "# specwatch " + version + "\n\n" + section + "\n"; string(notes) != want {
		t.Errorf("RELEASE_NOTES.md: %.200q, want the CHANGELOG's %s section", notes, version)
	}
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, file, ok := strings.Cut(line, "  ")
		b, err := os.ReadFile(filepath.Join(dist, file))
		d := sha256.Sum256(b)
		if !ok || err != nil || hex.EncodeToString(d[:]) != sum {
			t.Errorf("SHA256SUMS line %q does not match the file (%v)", line, err)
		}
		listed[file] = true
	}
	for _, f := range []string{name + ".tar.gz", "RELEASE_NOTES.md"} {
		if !listed[f] {
			t.Errorf("SHA256SUMS lacks %s:\n%s", f, sums)
		}
	}
}

// untar unpacks a .tar.gz into dir and returns its regular files' names, sorted.
func untar(t *testing.T, path, dir string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	tr := tar.NewReader(z)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s owned by %d:%d, want root", h.Name, h.Uid, h.Gid)
		}
		p := filepath.Join(dir, h.Name)
		if h.Typeflag == tar.TypeDir {
			os.MkdirAll(p, 0o755)
			continue
		}
		names = append(names, h.Name)
		b, _ := io.ReadAll(tr)
		if err := os.WriteFile(p, b, os.FileMode(h.Mode)); err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(names)
	return names
}
