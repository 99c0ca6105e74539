package deploy

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/model"
)

// legendPanel is what these tests read of a panel: its queries with their legends.
type legendPanel struct {
	ID      int    `json:"id"`
	Title   string `json:"title"`
	Targets []struct {
		Expr         string `json:"expr"`
		LegendFormat string `json:"legendFormat"`
	} `json:"targets"`
	Panels []legendPanel `json:"panels"`
}

func loadLegendPanels(t *testing.T, name string) []legendPanel {
	t.Helper()
	b, err := os.ReadFile(testharness.DeployPath(t, "grafana", name))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []legendPanel `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []legendPanel
	var walk func([]legendPanel)
	walk = func(ps []legendPanel) {
		for _, p := range ps {
			out = append(out, p)
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	return out
}

var kindRegexRE = regexp.MustCompile(`kind=~"([^"]*)"`)

// TestFleetSeverityCountsMatchAlerts: the fleet dashboard's "Critical anomalies" and "Warning
// anomalies" count exactly the kinds whose alert in specwatch-alerts.yml has that severity
// (and so the model's, TestAlertsMatchModel): deploy/mixin renders both from the alert rules.
func TestFleetSeverityCountsMatchAlerts(t *testing.T) {
	t.Parallel()
	rf := loadRuleFile(t, testharness.DeployPath(t, "prometheus", "specwatch-alerts.yml"))
	want := map[string][]string{}
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			m := regexp.MustCompile(`^specwatch_anomaly_active\{kind="([a-z_]+)"\} == 1$`).FindStringSubmatch(strings.TrimSpace(r.Expr))
			if r.Alert != "" && m != nil {
				want[r.Labels["severity"]] = append(want[r.Labels["severity"]], m[1])
			}
		}
	}
	var all []string
	for k := model.AnomalyKind(0); k < model.NumAnomalyKinds; k++ {
		all = append(all, k.String())
	}
	counted := 0
	for _, p := range loadLegendPanels(t, "specwatch-fleet.json") {
		sev := map[string]string{"Critical anomalies": "critical", "Warning anomalies": "warning"}[p.Title]
		if sev == "" {
			continue
		}
		counted++
		if len(p.Targets) != 1 {
			t.Fatalf("panel %q: %d queries, want 1", p.Title, len(p.Targets))
		}
		m := kindRegexRE.FindStringSubmatch(p.Targets[0].Expr)
		if m == nil {
			t.Errorf("panel %q: %s selects no kind=~\"…\" list", p.Title, p.Targets[0].Expr)
			continue
		}
		got := strings.Split(m[1], "|")
		slices.Sort(got)
		w := slices.Sorted(slices.Values(want[sev]))
		if !slices.Equal(got, w) {
			t.Errorf("panel %q counts kinds %v; the %s alerts are on %v", p.Title, got, sev, w)
		}
		for _, k := range got {
			if !slices.Contains(all, k) {
				t.Errorf("panel %q: %s is no anomaly kind of the model", p.Title, k)
			}
		}
	}
	if counted != 2 {
		t.Errorf("%d severity panels found in specwatch-fleet.json, want Critical anomalies and Warning anomalies", counted)
	}
	if len(want["critical"])+len(want["warning"]) != len(all) {
		t.Errorf("critical %v + warning %v do not cover the model's kinds %v", want["critical"], want["warning"], all)
	}
}

// TestDashboardLegendsNameSeries: a legend that names a rank also names its host and pod, so
// that two hosts' "Engine 000" (or TP0) are told apart.
func TestDashboardLegendsNameSeries(t *testing.T) {
	t.Parallel()
	for _, name := range testharness.DashboardFiles {
		n := 0
		for _, p := range loadLegendPanels(t, name) {
			for _, tg := range p.Targets {
				if !strings.Contains(tg.LegendFormat, "{{rank}}") {
					continue
				}
				n++
				for _, l := range []string{"{{host}}", "{{pod}}", "{{unit}}"} {
					if !strings.Contains(tg.LegendFormat, l) {
						t.Errorf("%s panel %d %q: legend %q has no %s", name, p.ID, p.Title, tg.LegendFormat, l)
					}
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no legend names a rank", name)
		}
	}
}

// TestDashboardsPerPositionAcceptance: both dashboards chart specwatch_position_accept_ratio
// with a line per position (the legend names it) and the series it belongs to.
func TestDashboardsPerPositionAcceptance(t *testing.T) {
	t.Parallel()
	for _, name := range testharness.DashboardFiles {
		found := false
		for _, p := range loadLegendPanels(t, name) {
			for _, tg := range p.Targets {
				if !strings.Contains(tg.Expr, "specwatch_position_accept_ratio{") {
					continue
				}
				found = true
				if strings.Contains(tg.Expr, " by ") || !strings.Contains(tg.LegendFormat, "{{position}}") || !strings.Contains(tg.LegendFormat, "{{host}}") {
					t.Errorf("%s panel %q: %s with legend %q: want each series' positions, the legend naming position and host", name, p.Title, tg.Expr, tg.LegendFormat)
				}
			}
		}
		if !found {
			t.Errorf("%s: no panel on specwatch_position_accept_ratio", name)
		}
	}
}

// TestAlertsReportLinkHasScheme: the report link every description ends with is a URL a chat
// client or mail reader makes clickable: http:// (mixin config reportScheme) before the
// instance.
func TestAlertsReportLinkHasScheme(t *testing.T) {
	t.Parallel()
	rf := loadRuleFile(t, testharness.DeployPath(t, "prometheus", "specwatch-alerts.yml"))
	links := 0
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			d := r.Annotations["description"]
			for i := strings.Index(d, "/api/v1/report"); i >= 0; i = strings.Index(d, "/api/v1/report") {
				links++
				if !strings.HasSuffix(d[:i], "http://{{ . }}") && !strings.HasSuffix(d[:i], "https://{{ . }}") {
					t.Errorf("%s: report link %q has no scheme", r.Alert, d[max(0, i-30):i+len("/api/v1/report")])
				}
				d = d[i+1:]
			}
		}
	}
	if links == 0 {
		t.Error("no description links the report")
	}
}
