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
