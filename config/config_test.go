package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
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
		{"model:\n  speculation_off_after: -5m\n", "model.speculation_off_after"},
		{"model:\n  warmup: 25h\n", "model.warmup"},
		{"model:\n  warmup: -1s\n", "model.warmup"},
		{"model:\n  expire_after: -1m\n", "model.expire_after"},
		{"model:\n  max_series: 99999999999999\n", "model.max_series"},
		{"model:\n  collapse_ratio: 1.5\n", "model.collapse_ratio"},
		{"push:\n  interval: soon\n", "push.interval"},
		{"push:\n  url: ftp://x\n", "push.url"},
		{"journal:\n  backend: magic\n", "journal.backend"},
		{"journal:\n  units: sglang.service\n", "journal.units"},
		{"journal:\n  containers: ['sglang-*', 'vllm-[']\n", "journal.containers[1]"},
		{"journal:\n  containers: ['']\n", "journal.containers[0]"},
		{"journal:\n  trim_mib: 4\n", "trim_mib"}, // removed with the sdjournal page trimmer
		{"log:\n  level: loud\n", "log.level"},
		{"aliases:\n  acc_len: commit\n", "aliases.acc_len"},
		{"model:\n  forecast_contexts: [4096, -1]\n", "model.forecast_contexts[1]"},
		{"timezone: Mars/Olympus\n", "timezone"},
		{"rules:\n  - name: x\n    match: '('\n", "rules[0]"},
		{"rules:\n  - name: x\n    match: 'a=(?P<commit_len>[0-9.]+)'\n    units: {commit_len: parsecs}\n", "rules[0]"},
	} {
		_, err := Load(writeConfig(t, c.body))
		if err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%q: error %v, want it to name %q", c.body, err, c.key)
		}
	}
}

func TestRestartKeys(t *testing.T) {
	old := Default()
	cur := Default()
	cur.Log.Level = "debug"
	cur.Model.Window = 9
	if k := RestartKeys(old, cur); len(k) != 0 {
		t.Errorf("log and model changes need no restart, got %v", k)
	}
	cur.Journal.Units = []string{"x.service"}
	cur.Listen = ":1"
	cur.StateDir = "/x"
	cur.Push.URL = "http://127.0.0.1:1/"
	cur.Push.Interval *= 2
	cur.Push.Labels = map[string]string{"dc": "x"}
	cur.Log.Format = "console"
	cur.Timezone = "UTC"
	if k, want := RestartKeys(old, cur), []string{"journal", "listen", "state_dir", "push.url", "push.interval", "push.labels", "log.format", "timezone"}; !reflect.DeepEqual(k, want) {
		t.Errorf("restart keys %v, want %v", k, want)
	}
}

// TestLoadRefusesFIFO: a FIFO as the config (no writer) is refused at once, not waited on: a
// reload blocked on one ignored every later SIGHUP.
func TestLoadRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "specwatch.yaml")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "FIFO") || !strings.Contains(err.Error(), p) {
		t.Errorf("FIFO config: %v, want a refusal naming it", err)
	}
}

// TestParseWhenRange: times that Unix nanoseconds cannot hold are refused, not wrapped.
func TestParseWhenRange(t *testing.T) {
	for s, ok := range map[string]bool{"2026-11-20": true, "1678-01-01": true, "2261-12-31 23:59:59": true,
		"2300-01-01": false, "1600-01-01": false, "9999-12-31T00:00:00Z": false, "2262-06-01": false} {
		_, err := ParseWhen(s, time.UTC)
		if (err == nil) != ok {
			t.Errorf("ParseWhen(%q): %v, want ok=%v", s, err, ok)
		}
	}
}

// model.warmup and model.expire_after default to 3h and 10m, and 0 turns them off: expiry
// reaches the model as "never" (negative), not as "the default".
func TestWarmupAndExpiryDefaultsAndOff(t *testing.T) {
	cfg, err := Load(writeConfig(t, "log:\n  level: info\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model.Warmup != 3*time.Hour || cfg.ModelOptions(true).ExpireAfter != 10*time.Minute {
		t.Errorf("defaults: warmup %v, expire_after %v", cfg.Model.Warmup, cfg.ModelOptions(true).ExpireAfter)
	}
	cfg, err = Load(writeConfig(t, "model:\n  warmup: 0s\n  expire_after: 0s\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model.Warmup != 0 || cfg.ModelOptions(true).ExpireAfter >= 0 {
		t.Errorf("off: warmup %v, model expire_after %v (want negative)", cfg.Model.Warmup, cfg.ModelOptions(true).ExpireAfter)
	}
	if keys := RestartKeys(Default(), cfg); len(keys) != 1 || keys[0] != "model.warmup" {
		t.Errorf("a changed warmup: restart keys %v, want [model.warmup]", keys)
	}
}

// TestConfigErrorsArePlain: the library's Go type names never reach the operator; a typo gets
// the key it most likely meant.
func TestConfigErrorsArePlain(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"lisen: ':1'\n", "lisen (line 1): unknown key (did you mean listen?)"},
		{"Model:\n  window: 3\n", "Model (line 1): unknown key (did you mean model?)"},
		{"model:\n  max_serie: 3\n", "model.max_serie (line 2): unknown key (did you mean max_series?)"},
		{"model:\n  zzzzzz: 3\n", "model.zzzzzz (line 2): unknown key\n"},
		{"model:\n  window: many\n", "model.window (line 2): got `many`, want a whole number"},
		{"push:\n  interval: soon\n", "push.interval (line 2): got `soon`, want a duration such as 30s, 5m or 2h"},
		{"model:\n  stale_after: [5m]\n", "model.stale_after (line 2): got a list, want a duration"},
		{"model:\n  idle_factor: fast\n", "model.idle_factor (line 2): got `fast`, want a number"},
		{"journal:\n  units: x\n", "journal.units (line 2): got `x`, want a list, such as [a, b]"},
		{"push:\n  labels: [a]\n", "push.labels (line 2): got a list, want a map of key: value"},
		{"log: [debug]\n", "log (line 1): got a list, want a section of keys (level, format)"},
	} {
		_, err := Load(writeConfig(t, c.body))
		if err == nil || !strings.Contains(err.Error()+"\n", c.want) || strings.Contains(err.Error(), "config.") || strings.Contains(err.Error(), "unmarshal") {
			t.Errorf("%q: error %v, want %q and no Go type names", c.body, err, c.want)
		}
	}
}

// TestParseWhenRelative: journalctl's relative times, against a given now.
func TestParseWhenRelative(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for s, want := range map[string]time.Time{
		"-2h": now.Add(-2 * time.Hour), "-90m": now.Add(-90 * time.Minute), "-1h30m": now.Add(-90 * time.Minute),
		"-3d": now.Add(-72 * time.Hour), "now": now, "-0s": now,
	} {
		got, err := ParseWhenAt(s, time.UTC, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseWhenAt(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"-", "-2", "-soon", "--2h", "-1.5d", "-99999d", "-2000000h", "2h"} {
		if got, err := ParseWhenAt(s, time.UTC, now); err == nil {
			t.Errorf("ParseWhenAt(%q) = %v, want an error", s, got)
		}
	}
}
