package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

var dashboardFiles = []string{"specwatch-fleet.json", "specwatch-series.json"}

// dashQuery is one PromQL query of a dashboard: a panel target, an annotation, or a template
// variable (label_values(sel, label) becomes count by (label) (sel)).
type dashQuery struct {
	where string // "specwatch-fleet.json panel 12 "Commit length" A"
	raw   string // as written, with Grafana variables
	expr  string // variables substituted: valid PromQL
	// mayBeEmpty: no data is a legitimate answer (no alert firing, no anomaly open, a field
	// the demo engines do not log).
	mayBeEmpty bool
}

// grafanaVars substitutes Grafana's variables with values a Prometheus accepts: the template
// variables become the regex every value matches (they are all used as label=~"$var").
var grafanaVars = strings.NewReplacer(
	"$__rate_interval", "1m", "${__rate_interval}", "1m",
	"$__interval", "15s", "${__interval}", "15s",
	"$__range", "1h", "${__range}", "1h",
	"${host}", ".+", "$host", ".+",
	"${unit}", ".+", "$unit", ".+",
	"${engine}", ".+", "$engine", ".+",
	"${rank}", ".+", "$rank", ".+",
)

var labelValuesRE = regexp.MustCompile(`^label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$`)

// mayBeEmptyRE: queries that legitimately return nothing on a healthy demo: open anomalies and
// firing alerts, accepted depth (custom builds only) and the accept rate (not every engine logs
// it).
var mayBeEmptyRE = regexp.MustCompile(`== 1|ALERTS|specwatch_accepted_depth|specwatch_accept_rate`)

type grafanaPanel struct {
	ID      int    `json:"id"`
	Type    string `json:"type"`
	Title   string `json:"title"`
	Repeat  string `json:"repeat"`
	GridPos struct {
		X, Y, W, H int
	} `json:"gridPos"`
	Datasource *struct {
		Type string `json:"type"`
		UID  string `json:"uid"`
	} `json:"datasource"`
	Targets []struct {
		Expr       string `json:"expr"`
		RefID      string `json:"refId"`
		Datasource *struct {
			UID string `json:"uid"`
		} `json:"datasource"`
	} `json:"targets"`
	Panels []grafanaPanel `json:"panels"`
}

type grafanaDashboard struct {
	UID           string         `json:"uid"`
	Title         string         `json:"title"`
	SchemaVersion int            `json:"schemaVersion"`
	Panels        []grafanaPanel `json:"panels"`
	Templating    struct {
		List []struct {
			Name       string          `json:"name"`
			Type       string          `json:"type"`
			Query      json.RawMessage `json:"query"`
			Multi      bool            `json:"multi"`
			IncludeAll bool            `json:"includeAll"`
			AllValue   string          `json:"allValue"`
			Datasource *struct {
				UID string `json:"uid"`
			} `json:"datasource"`
		} `json:"list"`
	} `json:"templating"`
	Annotations struct {
		List []struct {
			Name       string `json:"name"`
			Expr       string `json:"expr"`
			Datasource *struct {
				Type string `json:"type"`
				UID  string `json:"uid"`
			} `json:"datasource"`
		} `json:"list"`
	} `json:"annotations"`
}

func loadDashboard(t testing.TB, name string) grafanaDashboard {
	t.Helper()
	b, err := os.ReadFile(deployPath(t, "grafana", name))
	if err != nil {
		t.Fatal(err)
	}
	var d grafanaDashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}

// allPanels flattens rows (collapsed rows keep their panels inside).
func allPanels(ps []grafanaPanel) []grafanaPanel {
	var out []grafanaPanel
	for _, p := range ps {
		out = append(out, p)
		out = append(out, allPanels(p.Panels)...)
	}
	return out
}

func dashboardQueries(t testing.TB) []dashQuery {
	t.Helper()
	var qs []dashQuery
	add := func(where, raw string) {
		expr := raw
		if m := labelValuesRE.FindStringSubmatch(strings.TrimSpace(raw)); m != nil {
			expr = fmt.Sprintf("count by (%s) (%s)", m[2], m[1])
		}
		expr = grafanaVars.Replace(expr)
		qs = append(qs, dashQuery{where: where, raw: raw, expr: expr, mayBeEmpty: mayBeEmptyRE.MatchString(raw)})
	}
	for _, name := range dashboardFiles {
		d := loadDashboard(t, name)
		for _, p := range allPanels(d.Panels) {
			for _, tg := range p.Targets {
				add(fmt.Sprintf("%s panel %d %q %s", name, p.ID, p.Title, tg.RefID), tg.Expr)
			}
		}
		for _, a := range d.Annotations.List {
			if a.Expr != "" {
				add(fmt.Sprintf("%s annotation %q", name, a.Name), a.Expr)
			}
		}
		for _, v := range d.Templating.List {
			if v.Type != "query" {
				continue
			}
			var q struct {
				Query string `json:"query"`
			}
			if json.Unmarshal(v.Query, &q) != nil {
				json.Unmarshal(v.Query, &q.Query)
			}
			add(fmt.Sprintf("%s variable %s", name, v.Name), q.Query)
		}
	}
	return qs
}

// TestDashboardsStructure: the JSON is what Grafana 10/11 imports and provisions as is: a
// current schema, the data source as a variable, the four template variables (multi-select
// with All), unique panel ids, every query on the variable data source, no variable that is
// not defined, no overlapping panels.
func TestDashboardsStructure(t *testing.T) {
	t.Parallel()
	uids := map[string]bool{}
	for _, name := range dashboardFiles {
		d := loadDashboard(t, name)
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
			case "host", "unit", "engine", "rank":
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
		for _, want := range []string{"datasource", "host", "unit", "engine", "rank"} {
			if !vars[want] {
				t.Errorf("%s: no template variable %s", name, want)
			}
		}
		ids := map[int]bool{}
		type rect struct{ x, y, w, h int }
		var placed []rect
		var placedNames []string
		for _, p := range allPanels(d.Panels) {
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
		for _, q := range dashboardQueries(t) {
			for _, m := range regexp.MustCompile(`\$\{?([a-zA-Z_]+)`).FindAllStringSubmatch(q.raw, -1) {
				if !vars[m[1]] && !strings.HasPrefix(m[1], "__") {
					t.Errorf("%s: undefined variable $%s", q.where, m[1])
				}
			}
		}
	}

	// What the brief of each dashboard promises.
	fleet, series := loadDashboard(t, "specwatch-fleet.json"), loadDashboard(t, "specwatch-series.json")
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
	for _, q := range dashboardQueries(t) {
		if strings.HasPrefix(q.where, "specwatch-series.json") {
			all.WriteString(q.raw + "\n")
		}
	}
	for _, want := range []string{"specwatch_step_seconds", "specwatch_context_tokens", "specwatch_commit_length",
		"specwatch_throughput_attribution_log_ratio", "specwatch_model_tokens_per_second_at_context", "specwatch_anomaly_active"} {
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
	promtool := needTool(t, "promtool", "prometheus")
	qs := dashboardQueries(t)
	type rule struct {
		Record string `yaml:"record"`
		Expr   string `yaml:"expr"`
	}
	var rules []rule
	for i, q := range qs {
		rules = append(rules, rule{Record: fmt.Sprintf("dashboard_query_%03d", i), Expr: q.expr})
	}
	b, err := yaml.Marshal(map[string]any{"groups": []any{map[string]any{"name": "dashboards", "rules": rules}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dashboard-queries.yml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, time.Minute, "", nil, promtool, "check", "rules", path)
	if r.err != nil || r.code != 0 {
		// Name the queries promtool refused.
		for i, q := range qs {
			if strings.Contains(r.output(), fmt.Sprintf("dashboard_query_%03d", i)) || strings.Contains(r.output(), fmt.Sprintf("%d:", i+1)) {
				t.Logf("%s: %s", q.where, q.expr)
			}
		}
		t.Fatalf("promtool check rules on the dashboard queries: exit %d\n%s", r.code, r.output())
	}
	t.Logf("%d dashboard queries parse with promtool", len(qs))
	if vmalert, err := execLookPath("vmalert"); err == nil {
		r = runCmd(t, time.Minute, "", nil, vmalert, "-dryRun", "-loggerLevel=ERROR", "-rule="+path)
		if r.err != nil || r.code != 0 {
			t.Fatalf("vmalert -dryRun on the dashboard queries: exit %d\n%s", r.code, r.output())
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
	CheckDashboardQueries(t, base, wait)
}

// CheckDashboardQueries is TestDashboardQueriesReturnData's body, for the end-to-end test:
// every dashboard query returns data from the Prometheus at base within wait.
func CheckDashboardQueries(t *testing.T, base string, wait time.Duration) {
	t.Helper()
	start := time.Now()
	pending := dashboardQueries(t)
	var optionalEmpty []string
	for len(pending) > 0 {
		var still []dashQuery
		for _, q := range pending {
			n, err := promInstant(base, q.expr)
			if err != nil {
				t.Errorf("%s: %s: %v", q.where, q.expr, err)
				continue
			}
			if n == 0 {
				still = append(still, q)
				continue
			}
			t.Logf("ok %4d series  %s", n, q.where)
		}
		pending = still
		if time.Since(start) > wait {
			break
		}
		onlyOptional := true
		for _, q := range pending {
			onlyOptional = onlyOptional && q.mayBeEmpty
		}
		if onlyOptional && time.Since(start) > wait/2 {
			break // every required query answered; the optional ones had half the wait
		}
		if len(pending) > 0 {
			time.Sleep(2 * time.Second)
		}
	}
	for _, q := range pending {
		if q.mayBeEmpty {
			optionalEmpty = append(optionalEmpty, q.where)
			continue
		}
		t.Errorf("no data: %s\n    %s", q.where, q.expr)
	}
	if len(optionalEmpty) > 0 {
		t.Logf("empty, allowed (no anomaly open, no alert firing, or a field the engines do not log): %s", strings.Join(optionalEmpty, "; "))
	}
}

// promInstant runs an instant query and returns the number of series (or 1 for a scalar).
func promInstant(base, expr string) (int, error) {
	res, err := queryProm(base, expr)
	return len(res), err
}
