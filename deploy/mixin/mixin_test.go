package main

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func defaultConfig(t *testing.T) Config {
	t.Helper()
	c, err := LoadConfig("config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRenderedAreShipped: the committed outputs are the render of the committed sources.
func TestRenderedAreShipped(t *testing.T) {
	if err := run([]string{"-check"}); err != nil {
		t.Fatal(err)
	}
}

// TestLintFindsUnscopedDashboards: the dashboards as they were before the mixin (no job or
// instance variable, no matcher on them, editable) fail the lint with the linter's rules —
// the checks are real — and their render passes it.
func TestLintFindsUnscopedDashboards(t *testing.T) {
	c := defaultConfig(t)
	byRule := map[string]int{}
	total, panelJobInstance := 0, 0
	for _, f := range []string{"unscoped-fleet.json", "unscoped-series.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, finding := range lintDashboard(f, b, c) {
			byRule[finding.Rule]++
			total++
			if strings.HasPrefix(finding.Where, "panel ") && (finding.Rule == "target-job-rule" || finding.Rule == "target-instance-rule") {
				panelJobInstance++
			}
		}
	}
	for _, rule := range []string{"uneditable-dashboard", "template-job-rule", "template-instance-rule", "target-job-rule", "target-instance-rule", "target-cluster-rule"} {
		if byRule[rule] == 0 {
			t.Errorf("no %s finding on the unscoped dashboards", rule)
		}
	}
	var rules []string
	for r, n := range byRule {
		rules = append(rules, r+" "+itoa(n))
	}
	sort.Strings(rules)
	t.Logf("%d findings on the unscoped dashboards: %s; %d of them job or instance matchers missing in panel queries (what dashboard-linter checks)", total, strings.Join(rules, ", "), panelJobInstance)
	if byRule["target-job-rule"]+byRule["target-instance-rule"] < 80 {
		t.Errorf("%d job and instance findings; the hand-written dashboards had over 80", byRule["target-job-rule"]+byRule["target-instance-rule"])
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestLintRules: each rule on a dashboard that breaks only it.
func TestLintRules(t *testing.T) {
	c := defaultConfig(t)
	b, err := os.ReadFile("../grafana/specwatch-series.json")
	if err != nil {
		t.Fatal(err)
	}
	if f := lintDashboard("series", b, c); len(f) != 0 {
		t.Fatalf("the shipped dashboard has findings: %v", f)
	}
	scoped := `job=~\"$job\",instance=~\"$instance\",cluster=~\"$cluster\"`
	for rule, edit := range map[string][2]string{
		"target-rate-interval-rule":           {`[$__rate_interval]`, `[5m]`},
		"target-counter-agg-rule":             {`rate(specwatch_lines_total{` + scoped + `}[$__rate_interval])`, `specwatch_lines_total{` + scoped + `}`},
		"panel-units-rule":                    {`"unit": "percentunit"`, `"unit": "percentage"`},
		"target-instance-rule":                {`instance=~\"$instance\",cluster=~\"$cluster\",host`, `cluster=~\"$cluster\",host`},
		"uneditable-dashboard":                {`"editable": false`, `"editable": true`},
		"target-promql-rule":                  {`sum by (le) (`, `sum by (le) ((`},
		"template-on-time-change-reload-rule": {`"refresh": 2`, `"refresh": 1`},
	} {
		bad := strings.Replace(string(b), edit[0], edit[1], 1)
		if bad == string(b) {
			t.Fatalf("%s: %q not in the dashboard", rule, edit[0])
		}
		found := false
		for _, f := range lintDashboard("series", []byte(bad), c) {
			found = found || f.Rule == rule
		}
		if !found {
			t.Errorf("%s: no finding after replacing %s with %s", rule, edit[0], edit[1])
		}
	}
}

// TestRenderOtherConfig: a selector and no cluster label reach every output.
func TestRenderOtherConfig(t *testing.T) {
	c := defaultConfig(t)
	c.SpecwatchSelector = `job="llm-watch",env="prod"`
	c.ClusterLabel = ""
	c.JournalLagSeconds = 120
	c.FileLagBytes = 1 << 20
	out, err := renderAll(".", c)
	if err != nil {
		t.Fatal(err)
	}
	alerts := string(out["prometheus/specwatch-alerts.yml"])
	if strings.Contains(alerts, "specwatch.*") || !strings.Contains(alerts, `up{job="llm-watch",env="prod"} == 0`) || !strings.Contains(alerts, "specwatch_journal_lag_seconds > 120") ||
		!strings.Contains(alerts, "specwatch_file_lag_bytes > 1048576") {
		t.Errorf("alerts not rendered with the config:\n%s", alerts)
	}
	rec := string(out["prometheus/specwatch-recording.yml"])
	if strings.Contains(rec, "cluster, ") || !strings.Contains(rec, "sum by (job, instance, host)") {
		t.Errorf("recording rules keep a cluster label that does not exist:\n%s", rec)
	}
	for _, d := range []string{"grafana/specwatch-fleet.json", "grafana/specwatch-series.json"} {
		s := string(out[d])
		if strings.Contains(s, "$cluster") || !strings.Contains(s, `label_values(specwatch_build_info{job=\"llm-watch\",env=\"prod\"}, job)`) {
			t.Errorf("%s: not rendered with the config", d)
		}
	}
}

func TestConfigRejects(t *testing.T) {
	c := defaultConfig(t)
	for name, edit := range map[string]func(*Config){
		"selector": func(c *Config) { c.SpecwatchSelector = `job=~"x` },
		"empty":    func(c *Config) { c.SpecwatchSelector = "" },
		"cluster":  func(c *Config) { c.ClusterLabel = "clu-ster" },
		"lag":      func(c *Config) { c.JournalLagSeconds = 0 },
		"filelag":  func(c *Config) { c.FileLagBytes = -1 },
		"lookback": func(c *Config) { c.EngineLookback = "6 hours" },
		"scheme":   func(c *Config) { c.ReportScheme = "host:9877" },
	} {
		bad := c
		edit(&bad)
		if err := bad.check(); err == nil {
			t.Errorf("%s: accepted %+v", name, bad)
		}
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(path, []byte("specwatchSelektor: x\n"), 0o644)
	if _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), "specwatchSelektor") {
		t.Errorf("a misspelt key: %v, want an error naming it", err)
	}
}
