//go:build linux

package testharness

// The shipped Grafana dashboards as the tests read them, and their queries with Grafana's
// variables substituted.

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// DashboardFiles are the shipped dashboards, in deploy/grafana/.
var DashboardFiles = []string{"specwatch-fleet.json", "specwatch-series.json"}

// DashboardQuery is one PromQL query of a dashboard: a panel target, an annotation, or a template
// variable (label_values(sel, label) becomes count by (label) (sel)).
type DashboardQuery struct {
	Where string // "specwatch-fleet.json panel 12 "Commit length" A"
	Raw   string // as written, with Grafana variables
	Expr  string // variables substituted: valid PromQL
	// MayBeEmpty: no data is a legitimate answer (no alert firing, no anomaly open, a field
	// the demo engines do not log).
	MayBeEmpty bool
}

// grafanaVars substitutes Grafana's variables with values a Prometheus accepts: the template
// variables become the regex every value matches (they are all used as label=~"$var").
var grafanaVars = strings.NewReplacer(
	"$__rate_interval", "1m", "${__rate_interval}", "1m",
	"$__interval", "15s", "${__interval}", "15s",
	"$__range", "1h", "${__range}", "1h",
	"${job}", ".+", "$job", ".+",
	"${instance}", ".+", "$instance", ".+",
	// The cluster variable's All is ".*": it matches series without a cluster label.
	"${cluster}", ".*", "$cluster", ".*",
	"${host}", ".+", "$host", ".+",
	"${unit}", ".+", "$unit", ".+",
	"${engine}", ".+", "$engine", ".+",
	"${rank}", ".+", "$rank", ".+",
)

var labelValuesRE = regexp.MustCompile(`^label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$`)

// mayBeEmptyRE: queries that legitimately return nothing on a healthy demo: open anomalies and
// firing alerts, accepted depth (custom builds only), the accept rate and the acceptance per
// draft position (not every engine logs them; deploy's TestDashboardPerPositionReturnsData
// wants the latter from the demo's vLLM), the queries of vLLM's KV cache figures alone (no data where no vLLM runs; the
// queries that join them with the token context are required), and the inputs the demo does
// not configure: forward-pass publishers, TensorRT-LLM's iteration statistics, failed scrapes.
var mayBeEmptyRE = regexp.MustCompile(`== 1|ALERTS|specwatch_accepted_depth_tokens|specwatch_accept_ratio|specwatch_position_accept_ratio|^(1000 \* )?specwatch_(kv_cache_usage_ratio|model_step_kv_cache_slope_seconds)\{|specwatch_forward_pass_|specwatch_scrape_iteration_records_dropped_total|specwatch_scrape_failures_total`)

// GrafanaPanel is a panel of a dashboard, rows with their panels inside.
type GrafanaPanel struct {
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
	Panels []GrafanaPanel `json:"panels"`
}

// GrafanaDashboard is what the tests read of a dashboard.
type GrafanaDashboard struct {
	UID           string         `json:"uid"`
	Title         string         `json:"title"`
	SchemaVersion int            `json:"schemaVersion"`
	Panels        []GrafanaPanel `json:"panels"`
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

// LoadDashboard reads deploy/grafana/name.
func LoadDashboard(t testing.TB, name string) GrafanaDashboard {
	t.Helper()
	b, err := os.ReadFile(DeployPath(t, "grafana", name))
	if err != nil {
		t.Fatal(err)
	}
	var d GrafanaDashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}

// AllPanels flattens rows (collapsed rows keep their panels inside).
func AllPanels(ps []GrafanaPanel) []GrafanaPanel {
	var out []GrafanaPanel
	for _, p := range ps {
		out = append(out, p)
		out = append(out, AllPanels(p.Panels)...)
	}
	return out
}

// DashboardQueries are every query of the shipped dashboards.
func DashboardQueries(t testing.TB) []DashboardQuery {
	t.Helper()
	var qs []DashboardQuery
	add := func(where, raw string) {
		expr := raw
		if m := labelValuesRE.FindStringSubmatch(strings.TrimSpace(raw)); m != nil {
			expr = fmt.Sprintf("count by (%s) (%s)", m[2], m[1])
		}
		expr = grafanaVars.Replace(expr)
		qs = append(qs, DashboardQuery{Where: where, Raw: raw, Expr: expr, MayBeEmpty: mayBeEmptyRE.MatchString(raw)})
	}
	for _, name := range DashboardFiles {
		d := LoadDashboard(t, name)
		for _, p := range AllPanels(d.Panels) {
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

// CheckDashboardQueries is deploy's TestDashboardQueriesReturnData and a part of the end-to-end
// test: every dashboard query returns data from the Prometheus at base within wait.
func CheckDashboardQueries(t testing.TB, base string, wait time.Duration) {
	t.Helper()
	start := time.Now()
	pending := DashboardQueries(t)
	var optionalEmpty []string
	for len(pending) > 0 {
		var still []DashboardQuery
		for _, q := range pending {
			n, err := promInstant(base, q.Expr)
			if err != nil {
				t.Errorf("%s: %s: %v", q.Where, q.Expr, err)
				continue
			}
			if n == 0 {
				still = append(still, q)
				continue
			}
			t.Logf("ok %4d series  %s", n, q.Where)
		}
		pending = still
		if time.Since(start) > wait {
			break
		}
		onlyOptional := true
		for _, q := range pending {
			onlyOptional = onlyOptional && q.MayBeEmpty
		}
		if onlyOptional && time.Since(start) > wait/2 {
			break // every required query answered; the optional ones had half the wait
		}
		if len(pending) > 0 {
			time.Sleep(2 * time.Second)
		}
	}
	for _, q := range pending {
		if q.MayBeEmpty {
			optionalEmpty = append(optionalEmpty, q.Where)
			continue
		}
		t.Errorf("no data: %s\n    %s", q.Where, q.Expr)
	}
	if len(optionalEmpty) > 0 {
		t.Logf("empty, allowed (no anomaly open, no alert firing, or a field the engines do not log): %s", strings.Join(optionalEmpty, "; "))
	}
}

// promInstant runs an instant query and returns the number of series (or 1 for a scalar).
func promInstant(base, expr string) (int, error) {
	res, err := QueryProm(base, expr)
	return len(res), err
}
