package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// maxExposure is the highest `systemd-analyze security` exposure the unit may have.
const maxExposure = 2.0

// verifyRoot lays out a throwaway root for `systemd-analyze verify --root`: the host's unit
// directory (for the targets the unit names), the unit under test, and a stub
// /usr/bin/specwatch, so the check does not depend on specwatch being installed here.
func verifyRoot(t *testing.T, unit []byte) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"usr/bin", "usr/lib/systemd/system", "etc/systemd/system"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []string{"bin", "lib", "sbin"} {
		if err := os.Symlink("usr/"+l, filepath.Join(root, l)); err != nil && l != "sbin" {
			t.Fatal(err)
		}
	}
	hostUnits, _ := filepath.Glob("/usr/lib/systemd/system/*")
	for _, src := range hostUnits {
		fi, err := os.Lstat(src)
		if err != nil || fi.IsDir() {
			continue
		}
		dst := filepath.Join(root, "usr/lib/systemd/system", filepath.Base(src))
		if fi.Mode()&os.ModeSymlink != 0 {
			if target, err := os.Readlink(src); err == nil {
				os.Symlink(target, dst)
			}
			continue
		}
		if b, err := os.ReadFile(src); err == nil {
			os.WriteFile(dst, b, 0o644)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "usr/bin/specwatch"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc/systemd/system/specwatch.service"), unit, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestUnitVerify: `systemd-analyze verify` says nothing at all about the unit.
func TestUnitVerify(t *testing.T) {
	t.Parallel()
	sa := testharness.NeedTool(t, "systemd-analyze", "systemd")
	root := verifyRoot(t, testharness.ReadUnit(t))
	r := testharness.RunCmd(t, time.Minute, "", nil, sa, "verify", "--root="+root, "--man=no", "/etc/systemd/system/specwatch.service")
	if r.Err != nil || r.Code != 0 || r.Output() != "" {
		t.Fatalf("systemd-analyze verify: exit %d, err %v:\n%s", r.Code, r.Err, r.Output())
	}

	// The check is real: a broken unit in the same root is reported.
	broken := strings.Replace(string(testharness.ReadUnit(t)), "ExecStart=/usr/bin/specwatch", "ExecStart=/usr/bin/specwatch-missing", 1)
	broken = strings.Replace(broken, "[Service]", "[Service]\nNoSuchDirective=yes", 1)
	root = verifyRoot(t, []byte(broken))
	r = testharness.RunCmd(t, time.Minute, "", nil, sa, "verify", "--root="+root, "--man=no", "/etc/systemd/system/specwatch.service")
	if !strings.Contains(r.Output(), "specwatch-missing") || !strings.Contains(r.Output(), "NoSuchDirective") {
		t.Errorf("verify did not report a missing binary and an unknown directive:\n%s", r.Output())
	}
}

var exposureRE = regexp.MustCompile(`Overall exposure level for [^:]+: ([0-9.]+)`)

// TestUnitSecurityScore: `systemd-analyze security --offline` rates the unit at most
// maxExposure, and the settings the daemon relies on are present.
func TestUnitSecurityScore(t *testing.T) {
	t.Parallel()
	sa := testharness.NeedTool(t, "systemd-analyze", "systemd")
	r := testharness.RunCmd(t, time.Minute, "", nil, sa, "security", "--offline=true", "--no-pager", testharness.DeployPath(t, "specwatch.service"))
	if r.Err != nil || r.Code != 0 {
		t.Fatalf("systemd-analyze security: exit %d, err %v:\n%s", r.Code, r.Err, r.Output())
	}
	m := exposureRE.FindStringSubmatch(r.Stdout)
	if m == nil {
		t.Fatalf("no overall exposure in:\n%s", r.Output())
	}
	score, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("systemd-analyze security exposure: %.1f (target ≤ %.1f)", score, maxExposure)
	if score > maxExposure {
		t.Errorf("exposure %.1f > %.1f:\n%s", score, maxExposure, r.Stdout)
	}
	var open []string
	for _, line := range strings.Split(r.Stdout, "\n") {
		if strings.HasPrefix(line, "✗") {
			open = append(open, strings.Join(strings.Fields(line)[1:2], ""))
		}
	}
	t.Logf("left open: %s", strings.Join(open, " "))

	unit := string(testharness.ReadUnit(t))
	for _, want := range []string{
		"ExecStart=/usr/bin/specwatch run --config.file /etc/specwatch/specwatch.yaml $SPECWATCH_ARGS\n",
		"ExecReload=/bin/kill -HUP $MAINPID\n",
		"DynamicUser=yes\n", "SupplementaryGroups=systemd-journal\n", "StateDirectory=specwatch\n",
		"Restart=always\n", "CapabilityBoundingSet=\n", "NoNewPrivileges=yes\n",
		"RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6\n", "SystemCallFilter=@system-service\n",
		"MemoryDenyWriteExecute=yes\n", "PrivateUsers=yes\n", "ProtectSystem=strict\n",
	} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %q", strings.TrimSpace(want))
		}
	}
}

// TestUnitDefaults: the unit reads /etc/default/specwatch (optional: the leading "-") and puts
// SPECWATCH_ARGS on the command line unbraced, which systemd splits into words ("${...}" would
// pass "--log.level debug" as one argument); the shipped file sets exactly that variable. (No
// systemd runs as PID 1 here to start the unit; this checks the text systemd reads.)
func TestUnitDefaults(t *testing.T) {
	unit := string(testharness.ReadUnit(t))
	if !regexp.MustCompile(`(?m)^EnvironmentFile=-/etc/default/specwatch$`).MatchString(unit) {
		t.Error("the unit has no EnvironmentFile=-/etc/default/specwatch")
	}
	if !regexp.MustCompile(`(?m)^ExecStart=/usr/bin/specwatch run .* \$SPECWATCH_ARGS$`).MatchString(unit) {
		t.Error("ExecStart does not end with $SPECWATCH_ARGS")
	}
	b, err := os.ReadFile(filepath.Join(testharness.RepoRoot(t), "deploy", "debian", "default"))
	if err != nil {
		t.Fatal(err)
	}
	var vars []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line == "" || line[0] == '#' {
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		if !ok {
			t.Errorf("deploy/debian/default: %q is not NAME=value", line)
		}
		vars = append(vars, k)
	}
	if strings.Join(vars, ",") != "SPECWATCH_ARGS" {
		t.Errorf("deploy/debian/default sets %v, want SPECWATCH_ARGS only", vars)
	}
}
