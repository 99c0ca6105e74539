package deploy

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// TestDropIns: each drop-in of deploy/dropins, as /etc/systemd/system/specwatch.service.d/,
// passes `systemd-analyze verify` with the unit silently, and the unit with it merged (its
// [Service] lines appended, as systemd applies a drop-in) keeps its exposure ≤ maxExposure
// (CAP_DAC_READ_SEARCH without the private user namespace rates 1.5 against the unit's 1.1).
func TestDropIns(t *testing.T) {
	t.Parallel()
	sa := testharness.NeedTool(t, "systemd-analyze", "systemd")
	files, _ := filepath.Glob(testharness.DeployPath(t, "dropins", "*.conf"))
	if len(files) < 2 {
		t.Fatalf("drop-ins %v, want log-group.conf and docker-json-file.conf", files)
	}
	files = append(files, "broken.conf") // the check is real: an unknown directive is reported
	unit := testharness.ReadUnit(t)
	for _, f := range files {
		name := filepath.Base(f)
		dropIn, err := os.ReadFile(f)
		if name == "broken.conf" {
			dropIn, err = []byte("[Service]\nNoSuchDirective=yes\n"), nil
		}
		if err != nil {
			t.Fatal(err)
		}
		root := verifyRoot(t, unit)
		dir := filepath.Join(root, "etc/systemd/system/specwatch.service.d")
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), dropIn, 0o644); err != nil {
			t.Fatal(err)
		}
		r := testharness.RunCmd(t, time.Minute, "", nil, sa, "verify", "--root="+root, "--man=no", "/etc/systemd/system/specwatch.service")
		if name == "broken.conf" {
			if !strings.Contains(r.Output(), "NoSuchDirective") {
				t.Errorf("verify did not report a drop-in's unknown directive:\n%s", r.Output())
			}
			continue
		}
		if r.Err != nil || r.Code != 0 || r.Output() != "" {
			t.Errorf("%s: systemd-analyze verify: exit %d, err %v:\n%s", name, r.Code, r.Err, r.Output())
		}
		_, service, ok := strings.Cut(string(dropIn), "[Service]\n")
		if !ok {
			t.Fatalf("%s: no [Service] section", name)
		}
		merged := strings.Replace(string(unit), "\n[Install]", "\n"+service+"\n[Install]", 1)
		path := filepath.Join(t.TempDir(), "specwatch.service")
		os.WriteFile(path, []byte(merged), 0o644)
		r = testharness.RunCmd(t, time.Minute, "", nil, sa, "security", "--offline=true", "--no-pager", path)
		m := exposureRE.FindStringSubmatch(r.Stdout)
		if r.Code != 0 || m == nil {
			t.Fatalf("%s: systemd-analyze security: exit %d\n%s", name, r.Code, r.Output())
		}
		score, _ := strconv.ParseFloat(m[1], 64)
		t.Logf("%s: exposure %.1f with it (bound %.1f)", name, score, maxExposure)
		if score > maxExposure {
			t.Errorf("%s: exposure %.1f > %.1f", name, score, maxExposure)
		}
	}
}
