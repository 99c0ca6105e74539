package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "specwatch.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	for _, c := range []struct{ body, key string }{
		{"listen: ':9877'\nbogus: 1\n", "bogus"},
		{"model:\n  window: many\n", "model.window"},
		{"model:\n  stale_after: -5m\n", "model.stale_after"},
		{"model:\n  max_series: 99999999999999\n", "model.max_series"},
		{"model:\n  collapse_ratio: 1.5\n", "model.collapse_ratio"},
		{"push:\n  interval: soon\n", "push.interval"},
		{"push:\n  url: ftp://x\n", "push.url"},
		{"journal:\n  backend: magic\n", "journal.backend"},
		{"journal:\n  units: sglang.service\n", "journal.units"},
		{"journal:\n  trim_mib: -1\n", "journal.trim_mib"},
		{"journal:\n  trim_mib: 513\n", "journal.trim_mib"},
		{"journal:\n  trim_mib: 2.5\n", "journal.trim_mib"},
		{"log:\n  level: loud\n", "log.level"},
		{"aliases:\n  acc_len: commit\n", "aliases.acc_len"},
		{"model:\n  forecast_contexts: [4096, -1]\n", "model.forecast_contexts[1]"},
		{"timezone: Mars/Olympus\n", "timezone"},
		{"rules:\n  - name: x\n    match: '('\n", "rules[0]"},
		{"rules:\n  - name: x\n    match: 'a=(?P<commit_len>[0-9.]+)'\n    units: {commit_len: parsecs}\n", "rules[0]"},
	} {
		_, err := LoadConfig(writeConfig(t, c.body))
		if err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%q: error %v, want it to name %q", c.body, err, c.key)
		}
	}
}

func TestConfigDefaultsAndOverrides(t *testing.T) {
	p := writeConfig(t, "journal:\n  units: [sglang.service]\npush:\n  interval: 30s\naliases:\n  iter_ms: step_seconds/ms\n")
	cfg, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Listen != ":9877" || cfg.Push.Interval != 30*time.Second || len(cfg.Journal.Units) != 1 {
		t.Errorf("config %+v", cfg)
	}
	if a := cfg.parseOptions().Aliases["iter_ms"]; a.Scale != 0.001 {
		t.Errorf("alias %+v", a)
	}
	empty, err := LoadConfig(writeConfig(t, ""))
	if err != nil || empty.StateDir != "/var/lib/specwatch" {
		t.Errorf("empty file: %v %+v", err, empty)
	}
	var f runFlags
	f.set = map[string]bool{"listen": true}
	f.listen = "127.0.0.1:1"
	f.units = listFlag{"a.service", "b.service"}
	f.pushLabels = listFlag{"host=gpu07"}
	if err := f.apply(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Listen != "127.0.0.1:1" || len(cfg.Journal.Units) != 2 || cfg.Push.Labels["host"] != "gpu07" {
		t.Errorf("flags not applied: %+v", cfg)
	}
	if cfg.Journal.TrimMiB != 4 || trimAfter(cfg.Journal.TrimMiB) != 4<<20 {
		t.Errorf("default journal.trim_mib %d → %d bytes, want 4 MiB", cfg.Journal.TrimMiB, trimAfter(cfg.Journal.TrimMiB))
	}
	f.set["journal-trim-mib"], f.trimMiB = true, 0
	if err := f.apply(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Journal.TrimMiB != 0 || trimAfter(cfg.Journal.TrimMiB) >= 0 {
		t.Errorf("--journal-trim-mib 0: trim_mib %d → TrimAfter %d, want never (negative)", cfg.Journal.TrimMiB, trimAfter(cfg.Journal.TrimMiB))
	}
}

func TestCheckConfig(t *testing.T) {
	good := writeConfig(t, "listen: ':9100'\n")
	if out, _, code := runCmd(t, "check-config", good); code != 0 || !strings.Contains(out, "OK") {
		t.Errorf("good config: %d %s", code, out)
	}
	bad := writeConfig(t, "model:\n  window: x\n")
	if _, stderr, code := runCmd(t, "check-config", bad); code != 1 || !strings.Contains(stderr, "model.window") {
		t.Errorf("bad config: %d %s", code, stderr)
	}
}
