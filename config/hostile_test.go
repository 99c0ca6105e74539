package config

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Hostile configuration files: every one must be refused by LoadConfig, and so by
// `specwatch check-config` (exit status 1), with an error that names the offending key as a
// dotted path, or the file when no key is to blame, and never with a panic.
type hostileConfig struct {
	name, body string
	key        string // the error must contain it; "" means the file name
}

// billionLaughs nests ten lists of nine aliases of the one below (9^9 strings once expanded),
// defined under key, then refers to the last one from use.
func billionLaughs(key, use string) string {
	var b strings.Builder
	b.WriteString(key + ":\n  - &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "  - &x%d [", i)
		for j := range 9 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*x%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String() + use
}

func hostileConfigs() []hostileConfig {
	tenMiB := 10 << 20
	garbage := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range garbage {
		garbage[i] = byte(rng.UintN(256))
	}
	return []hostileConfig{
		// A string where a duration, a number, a list or a map is expected, and the reverse.
		{"string for a duration", "push:\n  interval: soon\n", "push.interval"},
		{"bare number for a duration", "model:\n  stale_after: 300\n", "model.stale_after"},
		{"float for a duration", "push:\n  interval: 1.5\n", "push.interval"},
		{"bool for a duration", "model:\n  stale_after: true\n", "model.stale_after"},
		{"list for a duration", "push:\n  interval: [15s]\n", "push.interval"},
		{"string for an int", "model:\n  window: many\n", "model.window"},
		{"float for an int", "model:\n  max_series: 1.5\n", "model.max_series"},
		{"list for an int", "model:\n  max_series: [256]\n", "model.max_series"},
		{"map for an int", "model:\n  collapse_samples: {n: 5}\n", "model.collapse_samples"},
		{"string for a float", "model:\n  idle_factor: fast\n", "model.idle_factor"},
		{"map for a float", "model:\n  depth_tolerance: {a: 1}\n", "model.depth_tolerance"},
		{"string for a list", "journal:\n  units: sglang.service\n", "journal.units"},
		{"map for a list", "journal:\n  identifiers: {a: b}\n", "journal.identifiers"},
		{"nested list for a list", "journal:\n  units: [[a, b]]\n", "journal.units"},
		{"scalar for an int list", "model:\n  forecast_contexts: 4096\n", "model.forecast_contexts"},
		{"string in an int list", "model:\n  forecast_contexts: [4096, lots]\n", "model.forecast_contexts"},
		{"string for a map", "aliases: acc_len\n", "aliases"},
		{"list for a map", "push:\n  labels: [job, specwatch]\n", "push.labels"},
		{"list in a map value", "push:\n  labels: {job: [a]}\n", "push.labels.job"},
		{"list for an alias target", "aliases:\n  acc_len: [commit_len]\n", "aliases.acc_len"},
		{"string for a section", "model: fast\n", "model"},
		{"number for a section", "journal: 3\n", "journal"},
		{"list for a section", "log: [debug]\n", "log"},
		{"map for a rule list", "rules: {name: x, match: 'a'}\n", "rules"},
		{"string for a rule", "rules: [x]\n", "rules[0]"},
		{"list for a rule name", "rules:\n  - name: [x]\n    match: 'a=(?P<commit_len>[0-9.]+)'\n", "rules[0].name"},
		{"list for rule units", "rules:\n  - name: x\n    match: 'a=(?P<commit_len>[0-9.]+)'\n    units: [ms]\n", "rules[0].units"},
		{"list for a string", "listen: [':9877']\n", "listen"},
		{"map for a string", "state_dir: {a: b}\n", "state_dir"},
		{"list for the timezone", "timezone: [UTC]\n", "timezone"},
		{"bare port number for the listen address", "listen: 9877\n", "listen"},
		{"number for the log level", "log:\n  level: 3\n", "log.level"},

		// Unknown keys, at the top level and nested, in block and flow style.
		{"unknown top-level key", "listen: ':9877'\nbogus: 1\n", "bogus"},
		{"key in the wrong case", "Model:\n  window: 30\n", "Model"},
		{"unknown journal key", "journal:\n  unit: [sglang.service]\n", "journal.unit"},
		{"unknown model key", "model:\n  windw: 30\n", "model.windw"},
		{"unknown push key", "push:\n  labels: {job: x}\n  extra: 1\n", "push.extra"},
		{"unknown rule key", "rules:\n  - name: x\n    match: 'a=(?P<commit_len>[0-9.]+)'\n    bogus: 1\n", "rules[0].bogus"},
		{"unknown key in flow style", "model: {window: 30, windw: 3}\n", "model.windw"},
		{"bad value in flow style", "model: {window: many, stale_after: 5m}\n", "model.window"},
		{"bad value in a flow rule", "rules: [{name: x, match: 'a=(?P<commit_len>[0-9.]+)', kind: lots}]\n", "rules[0]"},

		// Negative durations, zero and negative sizes.
		{"negative push interval", "push:\n  interval: -15s\n", "push.interval"},
		{"zero push interval", "push:\n  interval: 0s\n", "push.interval"},
		{"negative stale_after", "model:\n  stale_after: -1ns\n", "model.stale_after"},
		{"negative window", "model:\n  window: -1\n", "model.window"},
		{"most negative window", "model:\n  window: -9223372036854775808\n", "model.window"},
		{"negative max_series", "model:\n  max_series: -256\n", "model.max_series"},
		{"negative decode_log_interval", "model:\n  decode_log_interval: -40\n", "model.decode_log_interval"},
		{"negative stuck_samples", "model:\n  stuck_samples: -3\n", "model.stuck_samples"},
		{"negative inconsistent_samples", "model:\n  inconsistent_samples: -2\n", "model.inconsistent_samples"},
		{"negative collapse_samples", "model:\n  collapse_samples: -5\n", "model.collapse_samples"},
		{"zero forecast context", "model:\n  forecast_contexts: [0]\n", "model.forecast_contexts[0]"},
		{"negative forecast context", "model:\n  forecast_contexts: [4096, -1]\n", "model.forecast_contexts[1]"},
		{"negative tolerance", "model:\n  depth_tolerance: -0.25\n", "model.depth_tolerance"},
		{"idle factor below 1", "model:\n  idle_factor: 0.5\n", "model.idle_factor"},
		{"negative fraction", "model:\n  drop_min_effect: -0.03\n", "model.drop_min_effect"},

		// Huge numbers and durations.
		{"1e309 for an int", "model:\n  max_series: 1e309\n", "model.max_series"},
		{"2^64 for an int", "model:\n  max_series: 18446744073709551616\n", "model.max_series"},
		{"20 nines for an int", "model:\n  window: 99999999999999999999\n", "model.window"},
		{"max int64", "model:\n  window: 9223372036854775807\n", "model.window"},
		{"past the 1e9 bound", "model:\n  stuck_samples: 1000000001\n", "model.stuck_samples"},
		{"1e309 for a float", "model:\n  idle_factor: 1e309\n", "model.idle_factor"},
		{"1e308 for a float", "model:\n  tps_tolerance: 1e308\n", "model.tps_tolerance"},
		{"20 nines for a forecast context", "model:\n  forecast_contexts: [99999999999999999999]\n", "model.forecast_contexts"},
		{"2^64 forecast context", "model:\n  forecast_contexts: [18446744073709551616]\n", "model.forecast_contexts"},
		{"huge push interval", "push:\n  interval: 100000000h\n", "push.interval"},
		{"huge stale_after", "model:\n  stale_after: 100000000h\n", "model.stale_after"},
		{"duration past int64", "model:\n  stale_after: 9223372036854775808ns\n", "model.stale_after"},

		// NaN and infinities, as YAML writes them and as other languages do.
		{"NaN idle factor", "model:\n  idle_factor: .nan\n", "model.idle_factor"},
		{"NaN tolerance", "model:\n  depth_tolerance: .NaN\n", "model.depth_tolerance"},
		{"NaN tps tolerance", "model:\n  tps_tolerance: .NAN\n", "model.tps_tolerance"},
		{"NaN fraction", "model:\n  collapse_ratio: .nan\n", "model.collapse_ratio"},
		{"NaN min effect", "model:\n  regression_min_effect: .nan\n", "model.regression_min_effect"},
		{"plain NaN", "model:\n  idle_factor: NaN\n", "model.idle_factor"},
		{"plain Inf", "model:\n  idle_factor: Inf\n", "model.idle_factor"},
		{"infinite tolerance", "model:\n  depth_tolerance: .inf\n", "model.depth_tolerance"},
		{"minus infinity", "model:\n  idle_factor: -.inf\n", "model.idle_factor"},
		{"infinite fraction", "model:\n  drop_min_effect: .inf\n", "model.drop_min_effect"},
		{"NaN for an int", "model:\n  window: .nan\n", "model.window"},
		{"infinite int", "model:\n  max_series: .inf\n", "model.max_series"},
		{"NaN forecast context", "model:\n  forecast_contexts: [.nan]\n", "model.forecast_contexts"},
		{"infinite duration", "push:\n  interval: .inf\n", "push.interval"},

		// Duplicate keys.
		{"duplicate top-level key", "listen: ':1'\nlisten: ':2'\n", "listen"},
		{"duplicate nested key", "model:\n  window: 30\n  window: 40\n", "model.window"},
		{"duplicate section", "model:\n  window: 30\nmodel:\n  max_series: 10\n", "model"},
		{"duplicate rule key", "rules:\n  - name: x\n    name: y\n    match: 'a=(?P<commit_len>[0-9.]+)'\n", "rules[0].name"},

		// Alias bombs: refused, and fast (the test's deadline would catch a slow one).
		{"billion laughs under an unknown key", billionLaughs("lol", ""), "lol"},
		{"billion laughs in a list of strings", billionLaughs("journal:\n  units", ""), "journal.units[0]"},
		{"billion laughs in a list of ints", billionLaughs("model:\n  forecast_contexts", ""), "model.forecast_contexts[0]"},
		// The typed decoding never expands an alias whose lists cannot go where it is used; the
		// error names the anchors' key.
		{"billion laughs used in a list", billionLaughs("journal:\n  units", "  identifiers: *x9\n"), "journal.units[9]"},
		{"billion laughs used in a map", billionLaughs("journal:\n  units", "aliases: {a: *x9}\n"), "journal.units[9]"},
		{"billion laughs used as rules", billionLaughs("journal:\n  units", "rules: *x9\n"), "journal.units[9]"},

		// Structure: more than one document, a file too big to be a config, binary garbage.
		{"second document", "listen: ':9877'\n---\nbogus: 1\n", ""},
		{"second document, both valid", "listen: ':9877'\n---\nlisten: ':9878'\n", ""},
		{"10 MiB comment", "listen: ':9877'\n" + strings.Repeat("#"+strings.Repeat("x", 1023)+"\n", tenMiB/1025), ""},
		{"10 MiB value", "listen: '" + strings.Repeat("a", tenMiB) + "'\n", ""},
		{"10 MiB list", "model:\n  forecast_contexts: [" + strings.Repeat("4096, ", tenMiB/6) + "4096]\n", ""},
		{"binary garbage", string(garbage), ""},
		{"NUL bytes", "listen: ':9877'\x00\x00\n", ""},
		{"invalid UTF-8", "listen: '\xff\xfe:9877'\n", ""},
		{"tab indentation", "model:\n\twindow: 30\n", ""},
		{"a bare scalar", "specwatch\n", ""},
		{"a bare list", "- listen\n- ':9877'\n", ""},
		{"a directory", "", "is a directory"},
		{"an endless file", "", "/dev/zero"},
	}
}

func TestConfigHostileRefused(t *testing.T) {
	for _, c := range hostileConfigs() {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "specwatch.yaml")
			switch c.name {
			case "a directory":
				path = filepath.Dir(path)
			case "an endless file":
				path = "/dev/zero"
			default:
				if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := c.key
			if want == "" {
				want = path
			}
			start := time.Now()
			_, err := Load(path)
			took := time.Since(start)
			if err == nil {
				t.Fatalf("accepted %.80q", c.body)
			}
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %q", trimMsg(err.Error()), want)
			}
			if len(err.Error()) > 4096 {
				t.Errorf("error of %d bytes: an operator cannot read it", len(err.Error()))
			}
			t.Logf("%v: %s", took.Round(time.Millisecond), trimMsg(err.Error()))
		})
	}
}

func trimMsg(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// TestConfigHostileDefaults: what is documented as "the default" stays accepted: an empty
// file, a file of comments or a null document, and 0 for a model key (deploy/specwatch.yaml:
// "0 also means the default").
func TestConfigHostileDefaults(t *testing.T) {
	for _, body := range []string{"", "\n\n", "# nothing here\n", "---\n", "~\n", "null\n", "---\n...\n", "---\n---\n"} {
		cfg, err := Load(writeConfig(t, body))
		if err != nil {
			t.Errorf("%q: %v", body, err)
			continue
		}
		if !reflect.DeepEqual(cfg, Default()) {
			t.Errorf("%q: %+v, want the defaults", body, cfg)
		}
	}
	cfg, err := Load(writeConfig(t, "listen: ':1'\n---\n"))
	if err != nil || cfg.Listen != ":1" {
		t.Errorf("an empty document after the config: %v %q", err, cfg.Listen)
	}
	cfg, err = Load(writeConfig(t, "model:\n  max_series: 1e3\n  window: 3.0\n"))
	if err != nil || cfg.Model.MaxSeries != 1000 || cfg.Model.Window != 3 {
		t.Errorf("whole numbers written as floats: %v %+v", err, cfg.Model)
	}
	cfg, err = Load(writeConfig(t, "model:\n  window: 0\n  max_series: 0\n  stale_after: 0s\n"))
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.ModelOptions(true)
	if o.Window != 0 || o.MaxSeries != 0 || o.StaleAfter != 0 {
		t.Errorf("zeros not passed on as the model's defaults: %+v", o)
	}
}
