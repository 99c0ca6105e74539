package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

const testVersion = "0.0.0~deploytest"

// TestDebianPackage builds the package with scripts/package.sh, installs it with dpkg on this
// (throwaway CI) machine, checks what it installed, and purges it at cleanup. It runs only as
// root, without a specwatch package already installed, and — unless SPECWATCH_DPKG_TEST=1 —
// only where systemd is not running (so installing starts nothing).
func TestDebianPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and installs the Debian package")
	}
	t.Parallel()
	dpkg := testharness.NeedTool(t, "dpkg", "dpkg")
	testharness.NeedTool(t, "dpkg-deb", "dpkg")
	if os.Geteuid() != 0 {
		t.Skip("SKIP: installing a package needs root")
	}
	if _, err := os.Stat("/run/systemd/system"); err == nil && os.Getenv("SPECWATCH_DPKG_TEST") != "1" {
		t.Skip("SKIP: systemd is running here, and installing would start specwatch; SPECWATCH_DPKG_TEST=1 runs it anyway")
	}
	if r := testharness.RunCmd(t, time.Minute, "", nil, "dpkg-query", "-W", "-f=${Status}", "specwatch"); strings.Contains(r.Stdout, "installed") {
		t.Skipf("SKIP: a specwatch package is installed already (%s); not replacing it", r.Stdout)
	}

	// Build, with the same go build flags (and so the same cache) as testharness.BuildSpecwatch.
	root := testharness.RepoRoot(t)
	dist := t.TempDir()
	start := time.Now()
	r := testharness.RunCmd(t, 8*time.Minute, root, []string{"VERSION=" + testVersion, "DIST=" + dist}, filepath.Join(root, "scripts", "package.sh"))
	if r.Err != nil || r.Code != 0 {
		t.Fatalf("scripts/package.sh: exit %d %v\n%s", r.Code, r.Err, r.Output())
	}
	deb := filepath.Join(dist, "specwatch_"+testVersion+"_amd64.deb")
	if strings.TrimSpace(r.Stdout) != deb {
		t.Errorf("package.sh printed %q, want %q", r.Stdout, deb)
	}
	t.Logf("scripts/package.sh built %s in %s", filepath.Base(deb), time.Since(start).Round(time.Second))

	lintianClean(t, deb)
	info := testharness.RunCmd(t, time.Minute, "", nil, "dpkg-deb", "--info", deb)
	for _, want := range []string{"Package: specwatch", "Version: " + testVersion, "Architecture: amd64", "Depends: libc6 (>= 2.", "libsystemd0"} {
		if !strings.Contains(info.Stdout, want) {
			t.Errorf("dpkg-deb --info lacks %q:\n%s", want, info.Output())
		}
	}
	ctrl := filepath.Join(t.TempDir(), "DEBIAN")
	if r := testharness.RunCmd(t, time.Minute, "", nil, "dpkg-deb", "--control", deb, ctrl); r.Code != 0 {
		t.Fatalf("dpkg-deb --control: %s", r.Output())
	}
	if b, _ := os.ReadFile(filepath.Join(ctrl, "conffiles")); strings.TrimSpace(string(b)) != "/etc/default/specwatch\n/etc/specwatch/specwatch.yaml" {
		t.Errorf("conffiles %q, want /etc/default/specwatch and /etc/specwatch/specwatch.yaml", b)
	}
	for _, s := range []string{"postinst", "prerm", "postrm"} {
		if fi, err := os.Stat(filepath.Join(ctrl, s)); err != nil || fi.Mode().Perm()&0o100 == 0 {
			t.Errorf("maintainer script %s: %v", s, err)
		}
	}

	// Install, and purge at the end whatever happens.
	t.Cleanup(func() {
		r := testharness.RunCmd(t, 2*time.Minute, "", nil, dpkg, "--purge", "specwatch")
		if r.Err != nil || r.Code != 0 {
			t.Errorf("dpkg --purge specwatch: exit %d %v\n%s", r.Code, r.Err, r.Output())
		}
		for _, p := range []string{"/usr/bin/specwatch", "/etc/specwatch/specwatch.yaml", "/lib/systemd/system/specwatch.service"} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s left after purge", p)
			}
		}
	})
	r = testharness.RunCmd(t, 2*time.Minute, "", []string{"DEBIAN_FRONTEND=noninteractive"}, dpkg, "-i", deb)
	if r.Err != nil || r.Code != 0 {
		t.Fatalf("dpkg -i: exit %d %v\n%s", r.Code, r.Err, r.Output())
	}

	// Every file is where the brief says, and identical to the source; every page of docs/.
	installed := map[string]string{
		"/lib/systemd/system/specwatch.service":                   "deploy/specwatch.service",
		"/etc/specwatch/specwatch.yaml":                           "deploy/specwatch.yaml",
		"/usr/share/specwatch/prometheus/specwatch-alerts.yml":    "deploy/prometheus/specwatch-alerts.yml",
		"/usr/share/specwatch/prometheus/specwatch-recording.yml": "deploy/prometheus/specwatch-recording.yml",
		"/usr/share/specwatch/grafana/specwatch-fleet.json":       "deploy/grafana/specwatch-fleet.json",
		"/usr/share/specwatch/grafana/specwatch-series.json":      "deploy/grafana/specwatch-series.json",
		"/usr/share/doc/specwatch/runbook.md":                     "docs/runbook.md",
		"/usr/share/doc/specwatch/copyright":                      "deploy/debian/copyright",
		"/usr/share/doc/specwatch/CHANGELOG.md":                   "CHANGELOG.md",
		"/etc/default/specwatch":                                  "deploy/debian/default",
	}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if len(pages) < 2 {
		t.Fatalf("docs/*.md: %v", pages)
	}
	for _, p := range pages {
		installed["/usr/share/doc/specwatch/"+filepath.Base(p)] = "docs/" + filepath.Base(p)
	}
	for dst, src := range installed {
		got, err := os.ReadFile(dst)
		if err != nil {
			t.Errorf("not installed: %v", err)
			continue
		}
		want, _ := os.ReadFile(filepath.Join(root, src))
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s", dst, src)
		}
	}
	for _, p := range []string{"/usr/share/man/man1/specwatch.1.gz", "/usr/share/bash-completion/completions/specwatch", "/usr/share/zsh/vendor-completions/_specwatch", "/usr/share/fish/vendor_completions.d/specwatch.fish"} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	if r := testharness.RunCmd(t, time.Minute, "", []string{"MANWIDTH=80"}, "sh", "-c", "zcat /usr/share/man/man1/specwatch.1.gz | grep -c -- '--web.listen-address'"); strings.TrimSpace(r.Stdout) == "0" || r.Code != 0 {
		t.Errorf("the installed man page lacks --web.listen-address: %s", r.Output())
	}
	if fi, err := os.Stat("/usr/bin/specwatch"); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("/usr/bin/specwatch: %v %v", fi, err)
	}

	r = testharness.RunCmd(t, time.Minute, "", nil, "/usr/bin/specwatch", "version")
	rev := testharness.RunCmd(t, time.Minute, root, nil, "git", "rev-parse", "HEAD")
	if r.Code != 0 || !strings.Contains(r.Stdout, "specwatch "+testVersion+" ("+strings.TrimSpace(rev.Stdout)+")") {
		t.Errorf("specwatch version: exit %d: %s", r.Code, r.Output())
	}
	t.Logf("installed: %s", strings.TrimSpace(r.Stdout))
	r = testharness.RunCmd(t, time.Minute, "", nil, "/usr/bin/specwatch", "check-config", "/etc/specwatch/specwatch.yaml")
	if r.Code != 0 || !strings.Contains(r.Stdout, "OK") {
		t.Errorf("specwatch check-config of the installed config: exit %d: %s", r.Code, r.Output())
	}
	if sa, err := exec.LookPath("systemd-analyze"); err == nil {
		r = testharness.RunCmd(t, time.Minute, "", nil, sa, "verify", "--man=no", "/lib/systemd/system/specwatch.service")
		if r.Err != nil || r.Code != 0 || r.Output() != "" {
			t.Errorf("systemd-analyze verify /lib/systemd/system/specwatch.service: exit %d %v\n%s", r.Code, r.Err, r.Output())
		}
	} else {
		t.Log("systemd-analyze missing: unit not verified after install")
	}
	if _, err := os.Lstat("/etc/systemd/system/multi-user.target.wants/specwatch.service"); err != nil {
		t.Errorf("the unit was not enabled by postinst: %v", err)
	}
}
