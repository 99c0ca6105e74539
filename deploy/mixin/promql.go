package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/prometheus/prometheus/promql/parser"
)

// grafanaDurations are Grafana's interval variables, which are not PromQL: a query is parsed
// with each replaced by a duration of the same length, so that the parser's positions are
// positions in the query as written, and one no query writes (a second short of a day, each
// variable its own), so that the lint can tell $__rate_interval from a literal range.
var grafanaDurations = []struct {
	name    string
	seconds int
}{
	{"${__rate_interval}", rateIntervalSeconds}, {"$__rate_interval", rateIntervalSeconds},
	{"${__interval}", 86398}, {"$__interval", 86398},
	{"${__range}", 86397}, {"$__range", 86397},
}

const rateIntervalSeconds = 86399

// maskGrafana returns expr with Grafana's interval variables replaced by same-length
// durations ("0086399s"); template variables ($host) only appear inside label values, which
// the parser takes as they are.
func maskGrafana(expr string) string {
	for _, v := range grafanaDurations {
		d := strconv.Itoa(v.seconds) + "s"
		expr = strings.ReplaceAll(expr, v.name, strings.Repeat("0", len(v.name)-len(d))+d)
	}
	return expr
}

// parseGrafana parses a dashboard query as PromQL.
func parseGrafana(expr string) (parser.Expr, error) {
	return newParser().ParseExpr(maskGrafana(expr))
}

// selectors are the vector selectors of e, with the matchers each has.
func selectors(e parser.Expr) []*parser.VectorSelector {
	var out []*parser.VectorSelector
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			out = append(out, vs)
		}
		return nil
	})
	return out
}

// injectMatchers adds matchers (`job=~"$job"`, ...) to every vector selector of expr, in the
// text as written: the query keeps its layout, only the selectors grow. A selector that already
// matches on one of those variables is an error: the generator owns them. Other matchers on
// the same labels stay (`up{job=~"specwatch.*"}` keeps to specwatch's jobs when $job is All,
// which Grafana sends as ".+").
func injectMatchers(expr string, matchers []string) (string, error) {
	if len(matchers) == 0 {
		return expr, nil
	}
	e, err := parseGrafana(expr)
	if err != nil {
		return "", fmt.Errorf("query %q: %w", expr, err)
	}
	own := map[string]bool{} // the values the generator's matchers use ("$job")
	for _, m := range matchers {
		_, v, _ := strings.Cut(m, `"`)
		own[strings.TrimSuffix(v, `"`)] = true
	}
	type edit struct {
		at   int
		text string
	}
	var edits []edit
	for _, vs := range selectors(e) {
		for _, m := range vs.LabelMatchers {
			if own[m.Value] {
				return "", fmt.Errorf("query %q: selector %s already matches %s on %s (the mixin adds it; drop it from the source)", expr, vs, m.Name, m.Value)
			}
		}
		start := int(vs.PositionRange().Start)
		i := start
		if vs.Name != "" && strings.HasPrefix(expr[i:], vs.Name) {
			i += len(vs.Name)
		}
		j := i
		for j < len(expr) && expr[j] == ' ' {
			j++
		}
		list := strings.Join(matchers, ",")
		switch {
		case j < len(expr) && expr[j] == '{':
			rest := strings.TrimLeft(expr[j+1:], " ")
			if strings.HasPrefix(rest, "}") {
				edits = append(edits, edit{j + 1, list})
			} else {
				edits = append(edits, edit{j + 1, list + ","})
			}
		case vs.Name != "":
			edits = append(edits, edit{i, "{" + list + "}"})
		default:
			return "", fmt.Errorf("query %q: cannot place matchers in selector at %d", expr, start)
		}
	}
	sort.Slice(edits, func(a, b int) bool { return edits[a].at > edits[b].at })
	for _, ed := range edits {
		expr = expr[:ed.at] + ed.text + expr[ed.at:]
	}
	if _, err := parseGrafana(expr); err != nil {
		return "", fmt.Errorf("query %q after adding matchers: %w", expr, err)
	}
	return expr, nil
}

// newParser is Prometheus' parser with its defaults (no experimental functions, as a
// Prometheus without feature flags).
func newParser() parser.Parser { return parser.NewParser(parser.Options{}) }
