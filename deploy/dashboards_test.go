package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// TestDashboardsStructure: the JSON is what Grafana 10/11 imports and provisions as is: a
// current schema, the data source as a variable, the scope variables (cluster, job, instance;
// deploy/mixin adds them) and the four series variables (multi-select with All), unique panel
// ids, every query on the variable data source, no variable that is
// not defined, no overlapping panels.
func TestDashboardsStructure(t *testing.T) {
	t.Parallel()
	uids := map[string]bool{}
	for _, name := range testharness.DashboardFiles {
		d := testharness.LoadDashboard(t, name)
		if d.SchemaVersion < 39 {
			t.Errorf("%s: schemaVersion %d, want ≥ 39", name, d.SchemaVersion)
		}
		if d.UID == "" || uids[d.UID] || d.Title == "" {
			t.Errorf("%s: uid %q title %q (unique uid and a title wanted)", name, d.UID, d.Title)
		}
		uids[d.UID] = true
		vars := map[string]bool{}
		for _, v := range d.Templating.List {
			vars[v.Name] = true
			switch v.Name {
			case "datasource":
				var q string
				json.Unmarshal(v.Query, &q)
				if v.Type != "datasource" || q != "prometheus" {
					t.Errorf("%s: variable datasource is %s/%s, want type datasource, query prometheus", name, v.Type, q)
				}
			case "cluster", "job", "instance", "host", "unit", "engine", "rank":
				if v.Type != "query" || !v.Multi || !v.IncludeAll || v.AllValue == "" {
					t.Errorf("%s: variable %s: type %s multi %v includeAll %v allValue %q", name, v.Name, v.Type, v.Multi, v.IncludeAll, v.AllValue)
				}
				if v.Datasource == nil || v.Datasource.UID != "${datasource}" {
					t.Errorf("%s: variable %s does not use ${datasource}", name, v.Name)
				}
				if !strings.Contains(string(v.Query), "label_values(") {
					t.Errorf("%s: variable %s: %s is not a label_values query", name, v.Name, v.Query)
				}
			}
		}
		for _, want := range []string{"datasource", "cluster", "job", "instance", "host", "unit", "engine", "rank"} {
			if !vars[want] {
				t.Errorf("%s: no template variable %s", name, want)
			}
		}
		ids := map[int]bool{}
		type rect struct{ x, y, w, h int }
		var placed []rect
		var placedNames []string
		for _, p := range testharness.AllPanels(d.Panels) {
			if ids[p.ID] || p.ID == 0 {
				t.Errorf("%s: panel id %d repeated or zero (%q)", name, p.ID, p.Title)
			}
			ids[p.ID] = true
			g := rect{p.GridPos.X, p.GridPos.Y, p.GridPos.W, p.GridPos.H}
			if g.w <= 0 || g.h <= 0 || g.x+g.w > 24 {
				t.Errorf("%s: panel %q gridPos %+v", name, p.Title, g)
			}
			for i, q := range placed {
				if g.x < q.x+q.w && q.x < g.x+g.w && g.y < q.y+q.h && q.y < g.y+g.h {
					t.Errorf("%s: panel %q overlaps %q", name, p.Title, placedNames[i])
				}
			}
			placed, placedNames = append(placed, g), append(placedNames, p.Title)
			if p.Type == "row" {
				continue
			}
			if p.Datasource == nil || p.Datasource.UID != "${datasource}" {
				t.Errorf("%s: panel %q is not on the ${datasource} variable", name, p.Title)
			}
			refs := map[string]bool{}
			if len(p.Targets) == 0 {
				t.Errorf("%s: panel %q has no query", name, p.Title)
			}
			for _, tg := range p.Targets {
				if tg.Expr == "" || tg.RefID == "" || refs[tg.RefID] {
					t.Errorf("%s: panel %q: target %q refId %q", name, p.Title, tg.Expr, tg.RefID)
				}
				refs[tg.RefID] = true
				if tg.Datasource == nil || tg.Datasource.UID != "${datasource}" {
					t.Errorf("%s: panel %q target %s is not on ${datasource}", name, p.Title, tg.RefID)
				}
			}
		}
		for _, q := range testharness.DashboardQueries(t) {
			for _, m := range regexp.MustCompile(`\$\{?([a-zA-Z_]+)`).FindAllStringSubmatch(q.Raw, -1) {
				if !vars[m[1]] && !strings.HasPrefix(m[1], "__") {
					t.Errorf("%s: undefined variable $%s", q.Where, m[1])
				}
			}
		}
	}

	// What the brief of each dashboard promises.
	fleet, series := testharness.LoadDashboard(t, "specwatch-fleet.json"), testharness.LoadDashboard(t, "specwatch-series.json")
	repeated := false
	for _, p := range fleet.Panels {
		if p.Type == "row" && p.Repeat == "host" {
			repeated = true
		}
	}
	if !repeated {
		t.Error("specwatch-fleet.json: no row repeated by $host")
	}
	var all strings.Builder
	for _, q := range testharness.DashboardQueries(t) {
		if strings.HasPrefix(q.Where, "specwatch-series.json") {
			all.WriteString(q.Raw + "\n")
		}
	}
	for _, want := range []string{"specwatch_step_seconds", "specwatch_context_tokens", "specwatch_commit_length_tokens",
		"specwatch_throughput_attribution_log_ratio", "specwatch_model_forecast_tokens_per_second", "specwatch_anomaly_active"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("specwatch-series.json: no query on %s", want)
		}
	}
	annotated := false
	for _, a := range series.Annotations.List {
		annotated = annotated || strings.Contains(a.Expr, "specwatch_anomaly_active")
	}
	if !annotated {
		t.Error("specwatch-series.json: no annotation from specwatch_anomaly_active")
	}
}

// TestDashboardQueriesParse: every query of both dashboards, variables substituted, is valid
// PromQL for Prometheus (promtool checks a rules file holding each as a recording rule) and
// for VictoriaMetrics (vmalert -dryRun), offline.
func TestDashboardQueriesParse(t *testing.T) {
	t.Parallel()
	promtool := testharness.NeedTool(t, "promtool", "prometheus")
	qs := testharness.DashboardQueries(t)
	type rule struct {
		Record string `yaml:"record"`
		Expr   string `yaml:"expr"`
	}
	var rules []rule
	for i, q := range qs {
		rules = append(rules, rule{Record: fmt.Sprintf("dashboard_query_%03d", i), Expr: q.Expr})
	}
	b, err := yaml.Marshal(map[string]any{"groups": []any{map[string]any{"name": "dashboards", "rules": rules}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dashboard-queries.yml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := testharness.RunCmd(t, time.Minute, "", nil, promtool, "check", "rules", path)
	if r.Err != nil || r.Code != 0 {
		// Name the queries promtool refused.
		for i, q := range qs {
			if strings.Contains(r.Output(), fmt.Sprintf("dashboard_query_%03d", i)) || strings.Contains(r.Output(), fmt.Sprintf("%d:", i+1)) {
				t.Logf("%s: %s", q.Where, q.Expr)
			}
		}
		t.Fatalf("promtool check rules on the dashboard queries: exit %d\n%s", r.Code, r.Output())
	}
	t.Logf("%d dashboard queries parse with promtool", len(qs))
	if vmalert, err := exec.LookPath("vmalert"); err == nil {
		r = testharness.RunCmd(t, time.Minute, "", nil, vmalert, "-dryRun", "-loggerLevel=ERROR", "-rule="+path)
		if r.Err != nil || r.Code != 0 {
			t.Fatalf("vmalert -dryRun on the dashboard queries: exit %d\n%s", r.Code, r.Output())
		}
		t.Logf("%d dashboard queries parse with vmalert (MetricsQL)", len(qs))
	}
}

// TestDashboardQueriesReturnData runs every dashboard query against a Prometheus that has
// scraped specwatch (the demo) and has loaded deploy/prometheus/*.yml, and wants data from
// each — except the few that are legitimately empty (mayBeEmptyRE). Set SPECWATCH_PROM_URL
// (e.g. http://127.0.0.1:9090) to run it; SPECWATCH_PROM_WAIT (default 2m) bounds how long an
// empty query is retried (recording rules need an evaluation, rate() two scrapes).
func TestDashboardQueriesReturnData(t *testing.T) {
	base := os.Getenv("SPECWATCH_PROM_URL")
	if base == "" {
		t.Skip("SKIP: set SPECWATCH_PROM_URL to a Prometheus that scraped `specwatch demo` with deploy/prometheus/*.yml loaded (the end-to-end test does)")
	}
	wait := 2 * time.Minute
	if v := os.Getenv("SPECWATCH_PROM_WAIT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("SPECWATCH_PROM_WAIT: %v", err)
		}
		wait = d
	}
	testharness.CheckDashboardQueries(t, base, wait)
}
