package main

import (
	"os"
	"strings"
	"testing"
)

// TestLintRulesChecks: the shipped rule files are clean, and each check finds a rule file
// that breaks only it.
func TestLintRulesChecks(t *testing.T) {
	for _, c := range []struct {
		file   string
		checks map[string][2]string // check → replace this with that
	}{
		{"../prometheus/specwatch-alerts.yml", map[string][2]string{
			"promql/syntax":     {`expr: specwatch_journal_lag_seconds > 60`, `expr: specwatch_journal_lag_seconds > > 60`},
			"alerts/for":        {`for: 10m`, `for: 0s`},
			"rule/label":        {`severity: warning`, `severity: page`},
			"alerts/annotation": {`runbook.md#specwatchreloadfailed`, `runbook.md#reload`},
			"alerts/comparison": {`expr: specwatch_journal_lag_seconds > 60`, `expr: specwatch_journal_lag_seconds`},
			"alerts/template":   {`summary: "No specwatch scrape target at all"`, `summary: "No specwatch scrape target on {{ $labels.instance }}"`},
			"promql/counter":    {`increase(specwatch_series_dropped_total[10m]) > 0`, `specwatch_series_dropped_total > 0`},
			"promql/rate":       {`increase(specwatch_series_dropped_total[10m])`, `increase(specwatch_series_dropped_total[30s])`},
			"promql/regexp":     {`specwatch_config_last_reload_successful{job=~"specwatch.*"}`, `specwatch_config_last_reload_successful{job=~"specwatch"}`},
		}},
		{"../prometheus/specwatch-recording.yml", map[string][2]string{
			"promql/aggregate": {`sum without (result)`, `sum without (job, result)`},
			"rule/duplicate":   {`record: specwatch:step_seconds:ratio_model`, `record: specwatch:model_step_seconds:at_context`},
		}},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if f := lintRules(c.file, b); len(f) != 0 {
			t.Fatalf("%s as shipped: %v", c.file, f)
		}
		for check, edit := range c.checks {
			bad := strings.Replace(string(b), edit[0], edit[1], 1)
			if bad == string(b) {
				t.Fatalf("%s: %q not in %s", check, edit[0], c.file)
			}
			var got []string
			for _, f := range lintRules(c.file, []byte(bad)) {
				got = append(got, f.Rule)
			}
			if !strings.Contains(strings.Join(got, " "), check) {
				t.Errorf("%s: no finding after replacing %s with %s in %s (found %v)", check, edit[0], edit[1], c.file, got)
			}
		}
	}
}
