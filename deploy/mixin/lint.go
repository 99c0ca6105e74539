package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// The checks of grafana/dashboard-linter (its rule names in the findings) that apply to
// Prometheus dashboards, written anew because the linter cannot be had here, and a little
// stricter: every panel and annotation query, not only some panel types, and the cluster
// variable as well as job and instance.

type lintDash struct {
	Editable   bool `json:"editable"`
	Templating struct {
		List []lintVar `json:"list"`
	} `json:"templating"`
	Annotations struct {
		List []struct {
			Name string `json:"name"`
			Expr string `json:"expr"`
		} `json:"list"`
	} `json:"annotations"`
	Panels []lintPanel `json:"panels"`
}

type lintVar struct {
	Name       string          `json:"name"`
	Label      string          `json:"label"`
	Type       string          `json:"type"`
	Query      json.RawMessage `json:"query"`
	Multi      bool            `json:"multi"`
	AllValue   string          `json:"allValue"`
	Refresh    int             `json:"refresh"`
	Datasource *lintDS         `json:"datasource"`
}

type lintDS struct {
	UID string `json:"uid"`
}

type lintPanel struct {
	ID          int     `json:"id"`
	Type        string  `json:"type"`
	Title       string  `json:"title"`
	Description string  `json:"description"`
	Datasource  *lintDS `json:"datasource"`
	FieldConfig struct {
		Defaults struct {
			Unit     string          `json:"unit"`
			Mappings json.RawMessage `json:"mappings"`
		} `json:"defaults"`
		Overrides []struct {
			Properties []struct {
				ID    string `json:"id"`
				Value any    `json:"value"`
			} `json:"properties"`
		} `json:"overrides"`
	} `json:"fieldConfig"`
	Options struct {
		ReduceOptions struct {
			Fields string `json:"fields"`
		} `json:"reduceOptions"`
	} `json:"options"`
	Targets []struct {
		RefID string `json:"refId"`
		Expr  string `json:"expr"`
	} `json:"targets"`
	Panels []lintPanel `json:"panels"`
}

// valueTypes are the panel types the linter checks for title, description and units.
var valueTypes = []string{"stat", "singlestat", "gauge", "graph", "timeseries", "table"}

// grafanaUnits are Grafana's unit ids this project's panels may use (a subset of Grafana's
// list; an id outside it is most likely a typo Grafana would show as a bare number).
var grafanaUnits = []string{"none", "short", "string", "percent", "percentunit", "sci", "locale",
	"s", "ms", "µs", "ns", "m", "h", "d", "dtdurations", "dtdurationms", "hertz",
	"bytes", "decbytes", "bits", "Bps", "bps", "reqps", "ops", "cps", "rps", "wps", "iops",
	"bool", "bool_yes_no", "bool_on_off", "dateTimeAsIso", "dateTimeFromNow"}

// finding is one violation of a lint rule.
type finding struct {
	File, Where, Rule, What string
}

func (f finding) String() string { return f.File + ": " + f.Where + ": " + f.Rule + ": " + f.What }

// lintDashboard returns one finding per violation.
func lintDashboard(file string, b []byte, c Config) []finding {
	var d lintDash
	if err := json.Unmarshal(b, &d); err != nil {
		return []finding{{file, "dashboard", "json", err.Error()}}
	}
	var out []finding
	add := func(where, rule, format string, a ...any) {
		out = append(out, finding{file, where, rule, fmt.Sprintf(format, a...)})
	}
	if d.Editable {
		add("dashboard", "uneditable-dashboard", "editable is true")
	}

	vars := map[string]lintVar{}
	datasources := 0
	for _, v := range d.Templating.List {
		vars[v.Name] = v
		if v.Type == "datasource" {
			datasources++
			if v.Name != "datasource" || v.Label != "Data source" {
				add("variable "+v.Name, "template-datasource-rule", "a data source variable is named datasource, labelled \"Data source\" (is %q, %q)", v.Name, v.Label)
			}
		}
		if v.Type != "query" {
			continue
		}
		if v.Refresh != 2 {
			add("variable "+v.Name, "template-on-time-change-reload-rule", "refresh %d, want 2 (on time range change)", v.Refresh)
		}
		if err := checkVariableQuery(v); err != nil {
			add("variable "+v.Name, "template-label-promql-rule", "%v", err)
		}
	}
	if datasources == 0 {
		add("dashboard", "template-datasource-rule", "no data source variable")
	}
	scope := map[string]string{"job": ".+", "instance": ".+"}
	if c.ClusterLabel != "" {
		scope["cluster"] = ".*" // ours: All must match a Prometheus without the label
	}
	for name, all := range scope {
		v, ok := vars[name]
		rule := "template-" + name + "-rule"
		if !ok {
			add("dashboard", rule, "no %s variable", name)
			continue
		}
		label := strings.ToUpper(name[:1]) + name[1:]
		if v.Type != "query" || v.Label != label || !v.Multi || v.AllValue != all || v.Datasource == nil || !isDSVar(v.Datasource.UID) {
			add("variable "+name, rule, "want a multi-select query on $datasource labelled %q with All = %q (type %q, label %q, multi %v, allValue %q)", label, all, v.Type, v.Label, v.Multi, v.AllValue)
		}
	}

	matchers := c.dashboardMatchers()
	checkQuery := func(where, expr string, panel bool) {
		e, err := parseGrafana(expr)
		if err != nil {
			add(where, "target-promql-rule", "%q: %v", expr, err)
			return
		}
		for _, vs := range selectors(e) {
			for _, m := range matchers {
				want, err := newParser().ParseMetricSelector("{" + m + "}")
				if err != nil || len(want) != 1 {
					add(where, "target-promql-rule", "matcher %s: %v", m, err)
					continue
				}
				if !hasMatcher(vs.LabelMatchers, want[0].Name, want[0].Value) {
					rule := "target-" + want[0].Name + "-rule"
					if want[0].Name != "job" && want[0].Name != "instance" {
						rule = "target-cluster-rule"
					}
					add(where, rule, "selector %s has no %s", vs, m)
				}
			}
		}
		if !panel {
			return
		}
		lintCallArgs(e, func(rule, msg string) { add(where, rule, "%q: %s", expr, msg) })
	}

	for _, p := range flatten(d.Panels) {
		if p.Type == "row" {
			continue
		}
		where := fmt.Sprintf("panel %d %q", p.ID, p.Title)
		if p.Datasource == nil || !isDSVar(p.Datasource.UID) {
			add(where, "panel-datasource-rule", "not on the $datasource variable")
		}
		if slices.Contains(valueTypes, p.Type) {
			if p.Title == "" || p.Description == "" {
				add(where, "panel-title-description-rule", "title %q, description %q: both wanted", p.Title, p.Description)
			}
			if !unitExempt(p) {
				if u := panelUnit(p); !slices.Contains(grafanaUnits, u) {
					add(where, "panel-units-rule", "unit %q is not a Grafana unit", u)
				}
			}
		}
		if len(p.Targets) == 0 {
			add(where, "panel-no-targets-rule", "no query")
		}
		for _, t := range p.Targets {
			checkQuery(where+" "+t.RefID, t.Expr, true)
		}
	}
	for _, a := range d.Annotations.List {
		if a.Expr != "" {
			checkQuery(fmt.Sprintf("annotation %q", a.Name), a.Expr, false)
		}
	}
	for _, v := range d.Templating.List {
		if _, isScope := scope[v.Name]; isScope || v.Type != "query" {
			continue
		}
		if m := labelValuesRE.FindStringSubmatch(variableQuery(v)); m != nil {
			checkQuery("variable "+v.Name, m[1], false)
		}
	}
	return out
}

// lintCallArgs applies target-rate-interval-rule and target-counter-agg-rule to e.
func lintCallArgs(e parser.Expr, add func(rule, msg string)) {
	rateInterval := time.Duration(rateIntervalSeconds) * time.Second
	parser.Inspect(e, func(n parser.Node, path []parser.Node) error {
		switch n := n.(type) {
		case *parser.MatrixSelector:
			if len(path) > 0 {
				if call, ok := path[len(path)-1].(*parser.Call); ok && (call.Func.Name == "rate" || call.Func.Name == "irate") && n.Range != rateInterval {
					add("target-rate-interval-rule", call.Func.Name+" over "+n.Range.String()+", want $__rate_interval")
				}
			}
		case *parser.VectorSelector:
			if !strings.HasSuffix(n.Name, "_total") {
				return nil
			}
			ok := len(path) >= 2
			if ok {
				_, ok = path[len(path)-1].(*parser.MatrixSelector)
			}
			if ok {
				call, isCall := path[len(path)-2].(*parser.Call)
				ok = isCall && (call.Func.Name == "rate" || call.Func.Name == "irate" || call.Func.Name == "increase")
			}
			if !ok {
				add("target-counter-agg-rule", "counter "+n.Name+" not under rate, irate or increase")
			}
		}
		return nil
	})
}

func hasMatcher(ms []*labels.Matcher, name, value string) bool {
	for _, m := range ms {
		if m.Name == name && m.Type == labels.MatchRegexp && m.Value == value {
			return true
		}
	}
	return false
}

func isDSVar(uid string) bool { return uid == "$datasource" || uid == "${datasource}" }

func flatten(ps []lintPanel) []lintPanel {
	var out []lintPanel
	for _, p := range ps {
		out = append(out, p)
		out = append(out, flatten(p.Panels)...)
	}
	return out
}

// unitExempt: the linter does not ask a unit of a stat panel showing non-numeric fields, nor
// of a panel whose values are mapped to text.
func unitExempt(p lintPanel) bool {
	if p.Type == "stat" && p.Options.ReduceOptions.Fields != "" {
		return true
	}
	m := strings.TrimSpace(string(p.FieldConfig.Defaults.Mappings))
	if m != "" && m != "null" && m != "[]" {
		return true
	}
	for _, o := range p.FieldConfig.Overrides {
		for _, pr := range o.Properties {
			if pr.ID == "mappings" && pr.Value != nil {
				return true
			}
		}
	}
	return false
}

// panelUnit is the unit an override sets, else the default's (as the linter reads it).
func panelUnit(p lintPanel) string {
	for _, o := range p.FieldConfig.Overrides {
		for _, pr := range o.Properties {
			if s, ok := pr.Value.(string); ok && pr.ID == "unit" {
				return s
			}
		}
	}
	return p.FieldConfig.Defaults.Unit
}

func variableQuery(v lintVar) string {
	var q struct {
		Query string `json:"query"`
	}
	if json.Unmarshal(v.Query, &q) != nil {
		json.Unmarshal(v.Query, &q.Query)
	}
	return strings.TrimSpace(q.Query)
}

// checkVariableQuery: a query variable is label_values(selector, label) (or another of
// Grafana's Prometheus variable functions) with a selector that parses.
func checkVariableQuery(v lintVar) error {
	q := variableQuery(v)
	fn, args, ok := strings.Cut(q, "(")
	if !ok || !strings.HasSuffix(args, ")") {
		return fmt.Errorf("query %q is not a function call", q)
	}
	if !slices.Contains([]string{"label_names", "label_values", "metrics", "query_result"}, fn) {
		return fmt.Errorf("query %q: %s is not a Grafana Prometheus variable function", q, fn)
	}
	if fn != "label_values" {
		return nil
	}
	m := labelValuesRE.FindStringSubmatch(q)
	if m == nil {
		return fmt.Errorf("query %q: want label_values(selector, label)", q)
	}
	if _, err := parseGrafana(m[1]); err != nil {
		return fmt.Errorf("query %q: %w", q, err)
	}
	return nil
}
