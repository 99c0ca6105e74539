package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDashboardSeveritiesFollowAlerts: the fleet dashboard's critical and warning counts are
// rendered from the alert rules' severities — make throughput_collapse critical in the alerts
// source, and the critical count takes it over from the warning count.
func TestDashboardSeveritiesFollowAlerts(t *testing.T) {
	c := defaultConfig(t)
	dir := t.TempDir()
	for _, f := range []string{"alerts.yml", "recording.yml", "dashboards/specwatch-fleet.json", "dashboards/specwatch-series.json"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if f == "alerts.yml" {
			i := strings.Index(string(b), `kind="throughput_collapse"`)
			j := strings.Index(string(b[i:]), "severity: warning")
			if i < 0 || j < 0 {
				t.Fatal("alerts.yml: no throughput_collapse alert with severity warning")
			}
			b = []byte(string(b[:i+j]) + "severity: critical" + string(b[i+j+len("severity: warning"):]))
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := renderAll(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	fleet := string(out["grafana/specwatch-fleet.json"])
	for _, want := range []string{
		`kind=~\"commit_len_stuck|metrics_inconsistent|throughput_collapse\"`,
		`kind=~\"acceptance_drop|format_drift|rank_skew|restart_regression|speculation_disabled|stale|step_time_regression\"`,
	} {
		if !strings.Contains(fleet, want) {
			t.Errorf("the fleet dashboard rendered from the edited alerts has no %s", want)
		}
	}
}

func TestAnomalySeveritiesRejects(t *testing.T) {
	for name, src := range map[string]string{
		"twice": "groups:\n- name: g\n  rules:\n" +
			"  - {alert: A, expr: 'specwatch_anomaly_active{kind=\"stale\"} == 1', labels: {severity: warning}}\n" +
			"  - {alert: B, expr: 'specwatch_anomaly_active{kind=\"stale\"} == 1', labels: {severity: critical}}\n",
		"severity": "groups:\n- name: g\n  rules:\n" +
			"  - {alert: A, expr: 'specwatch_anomaly_active{kind=\"stale\"} == 1', labels: {severity: page}}\n",
		"no critical": "groups:\n- name: g\n  rules:\n" +
			"  - {alert: A, expr: 'specwatch_anomaly_active{kind=\"stale\"} == 1', labels: {severity: warning}}\n",
	} {
		if got, err := anomalySeverities([]byte(src)); err == nil {
			t.Errorf("%s: accepted, %v", name, got)
		}
	}
}

// TestReportScheme: the report link of the descriptions takes reportScheme.
func TestReportScheme(t *testing.T) {
	c := defaultConfig(t)
	for _, scheme := range []string{"http", "https"} {
		c.ReportScheme = scheme
		out, err := renderAll(".", c)
		if err != nil {
			t.Fatal(err)
		}
		alerts := string(out["prometheus/specwatch-alerts.yml"])
		if n := strings.Count(alerts, "/api/v1/report"); n == 0 || strings.Count(alerts, "Details: "+scheme+"://{{ . }}/api/v1/report.") != n {
			t.Errorf("reportScheme %s: not every report link of the alerts starts with %s://", scheme, scheme)
		}
	}
}
