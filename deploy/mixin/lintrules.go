package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"
)

// The static checks of cloudflare/pint (its check names in the findings), written anew
// because the Go module proxy refuses pint (403) and no Debian or npm package carries it.
// pint's online checks (a series exists, a label has values) need a live Prometheus; the
// rule tests under deploy/prometheus/tests stand in for those. Where pint's check is
// configurable, the setting is this project's policy, stated at the check.

// scrapeInterval is the interval the rules assume (docs/mixin.md): every group evaluates
// at 15 s, and promql/rate wants a rate's range to cover four scrapes of it.
const scrapeInterval = 15 * time.Second

// lintRule is one rule of a rule file, with what the checks read.
type lintRule struct {
	Alert         string            `yaml:"alert"`
	Record        string            `yaml:"record"`
	Expr          string            `yaml:"expr"`
	For           string            `yaml:"for"`
	KeepFiringFor string            `yaml:"keep_firing_for"`
	Labels        map[string]string `yaml:"labels"`
	Annotations   map[string]string `yaml:"annotations"`
}

var (
	severities     = []string{"critical", "warning", "info"}
	needAnnotation = []string{"summary", "description", "runbook_url"}
	runbookPrefix  = "https://github.com/specwatch/specwatch/blob/main/docs/runbook.md#"
	templateLabel  = regexp.MustCompile("index \\$labels `([a-zA-Z_][a-zA-Z0-9_]*)`|\\$labels\\.([a-zA-Z_][a-zA-Z0-9_]*)")
	// counterSafe are the functions a counter may be read through: rate-like ones, and those
	// that only ask whether or how often it changed or exists.
	counterSafe = []string{"rate", "irate", "increase", "resets", "changes", "absent", "absent_over_time",
		"present_over_time", "count_over_time", "timestamp", "last_over_time", "histogram_quantile"}
	rateLike = []string{"rate", "irate", "increase", "resets"}
)

// lintRules returns one finding per violation in a rendered rule file.
func lintRules(file string, b []byte) []finding {
	var rf ruleFile
	if err := yaml.Unmarshal(b, &rf); err != nil {
		return []finding{{file, "", "yaml/parse", err.Error()}}
	}
	var out []finding
	recorded := map[string]bool{}
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			where := g.Name + "/" + r.Alert + r.Record
			add := func(rule, format string, args ...any) {
				out = append(out, finding{file, where, rule, fmt.Sprintf(format, args...)})
			}
			e, err := newParser().ParseExpr(r.Expr)
			if err != nil {
				add("promql/syntax", "%v", err)
				continue
			}
			lintExpr(e, r.Record != "", add)
			if r.Record != "" {
				// rule/duplicate: two rules writing one name would write one series twice.
				if recorded[r.Record] {
					add("rule/duplicate", "%s is recorded by more than one rule", r.Record)
				}
				recorded[r.Record] = true
				continue
			}
			lintAlert(r, e, add)
		}
	}
	return out
}

func lintAlert(r lintRule, e parser.Expr, add func(rule, format string, args ...any)) {
	for _, d := range []struct{ name, v string }{{"for", r.For}, {"keep_firing_for", r.KeepFiringFor}} {
		if d.v == "" {
			continue
		}
		if v, err := model.ParseDuration(d.v); err != nil || v == 0 {
			add("alerts/for", "%s: %q is not a positive duration", d.name, d.v)
		}
	}
	// rule/label: the policy's severities (docs/mixin.md): routing keys on them.
	if !slices.Contains(severities, r.Labels["severity"]) {
		add("rule/label", "severity %q: want one of %s", r.Labels["severity"], strings.Join(severities, ", "))
	}
	for _, a := range needAnnotation {
		if strings.TrimSpace(r.Annotations[a]) == "" {
			add("alerts/annotation", "no %s annotation", a)
		}
	}
	if u := r.Annotations["runbook_url"]; u != "" && u != runbookPrefix+strings.ToLower(r.Alert) {
		add("alerts/annotation", "runbook_url %q: want %s%s", u, runbookPrefix, strings.ToLower(r.Alert))
	}
	if !hasCondition(e) {
		add("alerts/comparison", "the query has no comparison: it fires whenever the series exists")
	}
	// template/index (ours, not pint's): vmalert renders a label the alert lacks ($labels.unit
	// of a series without a unit) as "<no value>", and inside printf as %!q(<nil>), which
	// made the description's query invalid and kept the alert from firing at all; index
	// gives "" in Prometheus and vmalert alike.
	// alerts/template: a label the query cannot return renders empty in every notification.
	keep, known := outputLabels(e)
	for _, text := range append(mapValues(r.Annotations), mapValues(r.Labels)...) {
		for _, m := range templateLabel.FindAllStringSubmatch(text, -1) {
			if m[2] != "" {
				add("template/index", "$labels.%s: write index $labels `%s`, which vmalert renders as empty where the label is absent", m[2], m[2])
			}
			if name := m[1] + m[2]; known && !keep[name] {
				add("alerts/template", "label %s: the query's result has only %s", name, strings.Join(sortedKeys(keep), ", "))
			}
		}
	}
}

// lintExpr applies the checks of one expression that hold for alerts and recording rules.
func lintExpr(e parser.Expr, recording bool, add func(rule, format string, args ...any)) {
	parser.Inspect(e, func(n parser.Node, path []parser.Node) error {
		switch n := n.(type) {
		case *parser.VectorSelector:
			for _, m := range n.LabelMatchers {
				// promql/regexp: a regexp without a metacharacter is an equality match
				// written slower and easier to get wrong.
				if (m.Type == labels.MatchRegexp || m.Type == labels.MatchNotRegexp) && regexp.QuoteMeta(m.Value) == m.Value {
					add("promql/regexp", "%s: %s%s%q is a static string: use = or !=", n.Name, m.Name, m.Type, m.Value)
				}
			}
			if isCounter(n.Name) && !insideAny(path, counterSafe) {
				add("promql/counter", "%s is a counter: read it through rate() or increase()", n.Name)
			}
		case *parser.Call:
			if slices.Contains(rateLike, n.Func.Name) {
				if ms, ok := n.Args[0].(*parser.MatrixSelector); ok {
					vs := ms.VectorSelector.(*parser.VectorSelector)
					if !isCounter(vs.Name) {
						add("promql/counter", "%s(%s): not a counter", n.Func.Name, vs.Name)
					}
					if ms.Range < 4*scrapeInterval {
						add("promql/rate", "%s(%s[%s]): the range covers fewer than four %s scrapes", n.Func.Name, vs.Name, model.Duration(ms.Range), model.Duration(scrapeInterval))
					}
				}
			}
		case *parser.AggregateExpr:
			// promql/aggregate: recording rules keep job, which every dashboard and alert
			// selects on (pint's usual "keep job" setting).
			if recording && n.Op != parser.TOPK && n.Op != parser.BOTTOMK && n.Op != parser.LIMITK {
				if n.Without == slices.Contains(n.Grouping, "job") {
					add("promql/aggregate", "%s drops the job label", n.Op)
				}
			}
		}
		return nil
	})
}

// hasCondition: the alert's query filters: a comparison without bool, absent(), unless, or
// and with a filtering side; or on both of its sides.
func hasCondition(e parser.Expr) bool {
	switch e := e.(type) {
	case *parser.ParenExpr:
		return hasCondition(e.Expr)
	case *parser.BinaryExpr:
		switch e.Op {
		case parser.LUNLESS:
			return true
		case parser.LAND:
			return hasCondition(e.LHS) || hasCondition(e.RHS)
		case parser.LOR:
			return hasCondition(e.LHS) && hasCondition(e.RHS)
		}
		return e.Op.IsComparisonOperator() && !e.ReturnBool
	case *parser.Call:
		return e.Func.Name == "absent" || e.Func.Name == "absent_over_time"
	case *parser.AggregateExpr:
		return (e.Op == parser.COUNT || e.Op == parser.MAX || e.Op == parser.MIN || e.Op == parser.SUM || e.Op == parser.GROUP) && hasCondition(e.Expr)
	}
	return false
}

// outputLabels returns the only labels the query's result can have, where the query says
// (an aggregation by, a one-to-one match on, absent()); ok is false where they are the input
// series' own, which only a live Prometheus knows.
func outputLabels(e parser.Expr) (map[string]bool, bool) {
	switch e := e.(type) {
	case *parser.ParenExpr:
		return outputLabels(e.Expr)
	case *parser.AggregateExpr:
		if e.Without || e.Op == parser.TOPK || e.Op == parser.BOTTOMK || e.Op == parser.LIMITK {
			return nil, false
		}
		return setOf(e.Grouping), true
	case *parser.BinaryExpr:
		if e.Op.IsSetOperator() {
			if e.Op == parser.LOR {
				l, lok := outputLabels(e.LHS)
				r, rok := outputLabels(e.RHS)
				if !lok || !rok {
					return nil, false
				}
				for k := range r {
					l[k] = true
				}
				return l, true
			}
			return outputLabels(e.LHS)
		}
		vm := e.VectorMatching
		if vm != nil && vm.Card == parser.CardOneToOne && vm.On && !(e.Op.IsComparisonOperator() && !e.ReturnBool) {
			return setOf(vm.MatchingLabels), true
		}
		if l, ok := outputLabels(e.LHS); ok {
			return l, true
		}
		if _, isNum := e.LHS.(*parser.NumberLiteral); isNum {
			return outputLabels(e.RHS)
		}
		return nil, false
	case *parser.Call:
		if e.Func.Name == "absent" {
			keep := map[string]bool{}
			if vs, ok := e.Args[0].(*parser.VectorSelector); ok {
				for _, m := range vs.LabelMatchers {
					if m.Type == labels.MatchEqual && m.Name != model.MetricNameLabel {
						keep[m.Name] = true
					}
				}
			}
			return keep, true
		}
		if e.Func.Name == "vector" || e.Func.Name == "time" {
			return map[string]bool{}, true
		}
		for _, a := range e.Args {
			if l, ok := outputLabels(a); ok && a.Type() == parser.ValueTypeVector {
				return l, true
			}
		}
	}
	return nil, false
}

func isCounter(name string) bool {
	return strings.HasSuffix(name, "_total") || strings.HasSuffix(name, "_bucket") ||
		strings.HasSuffix(name, "_count") || strings.HasSuffix(name, "_sum")
}

func insideAny(path []parser.Node, funcs []string) bool {
	for _, n := range path {
		if c, ok := n.(*parser.Call); ok && slices.Contains(funcs, c.Func.Name) {
			return true
		}
		if a, ok := n.(*parser.AggregateExpr); ok && (a.Op == parser.COUNT || a.Op == parser.GROUP) {
			return true
		}
	}
	return false
}

func setOf(names []string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	if len(out) == 0 {
		return []string{"no labels"}
	}
	return out
}
