package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/specwatch/specwatch/config"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "specwatch.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigDefaultsAndOverrides(t *testing.T) {
	p := writeConfig(t, "journal:\n  units: [sglang.service]\npush:\n  interval: 30s\naliases:\n  iter_ms: step_seconds/ms\n")
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Listen != ":9877" || cfg.Push.Interval != 30*time.Second || len(cfg.Journal.Units) != 1 {
		t.Errorf("config %+v", cfg)
	}
	if a := cfg.ParseOptions().Aliases["iter_ms"]; a.Scale != 0.001 {
		t.Errorf("alias %+v", a)
	}
	empty, err := config.Load(writeConfig(t, ""))
	if err != nil || empty.StateDir != "/var/lib/specwatch" {
		t.Errorf("empty file: %v %+v", err, empty)
	}
	var f config.Overrides
	f.Given = map[string]bool{"web.listen-address": true}
	f.Listen = "127.0.0.1:1"
	f.Units = []string{"a.service", "b.service"}
	f.PushLabels = []string{"host=gpu07"}
	if err := f.Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Listen != "127.0.0.1:1" || len(cfg.Journal.Units) != 2 || cfg.Push.Labels["host"] != "gpu07" {
		t.Errorf("flags not applied: %+v", cfg)
	}
}

// TestTrimFlagRemoved: --journal-trim-mib went with the sdjournal page trimmer (CHANGELOG.md):
// giving it is a usage error, not a silent no-op.
func TestTrimFlagRemoved(t *testing.T) {
	if _, stderr, code := runCmd(t, "run", "--journal-trim-mib", "4"); code == 0 || !strings.Contains(stderr, "journal-trim-mib") {
		t.Errorf("run --journal-trim-mib 4: exit %d, stderr %q; want an error naming the flag", code, stderr)
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

// TestCheckConfigHostile: check-config is config.Load behind a command (config's own tests try
// every hostile file); here, that its refusals reach the operator as exit 1 naming the input.
func TestCheckConfigHostile(t *testing.T) {
	dir := t.TempDir()
	for path, want := range map[string]string{
		dir:         dir,
		"/dev/zero": "/dev/zero",
		writeConfig(t, "listen: ':1'\nlisen: x\n"): "lisen",
	} {
		if _, stderr, code := runCmd(t, "check-config", path); code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("check-config %s: exit %d, stderr %q, want 1 naming %q", path, code, stderr, want)
		}
	}
}

// TestContainerFlag: --container (repeatable) replaces journal.containers, and a malformed
// glob from the command line is refused naming the key.
func TestContainerFlag(t *testing.T) {
	parse := func(args ...string) (config.Config, error) {
		f := config.Overrides{Given: map[string]bool{}}
		app := kingpin.New("t", "")
		config.AddFlags(app.Command("run", ""), f.Flags(), f.Given)
		if _, err := app.Parse(append([]string{"run"}, args...)); err != nil {
			t.Fatal(err)
		}
		return f.Load()
	}
	cfg, err := parse("--journal.container", "sglang-*", "--journal.container", "vllm-[0-9]")
	if err != nil || !slices.Equal(cfg.Journal.Containers, []string{"sglang-*", "vllm-[0-9]"}) {
		t.Errorf("containers %q, %v", cfg.Journal.Containers, err)
	}
	if _, err := parse("--journal.container", "vllm-["); err == nil || !strings.Contains(err.Error(), "journal.containers[0]") {
		t.Errorf("a malformed glob: %v", err)
	}
}
