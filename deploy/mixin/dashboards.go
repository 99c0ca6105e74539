package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// dashboardMatchers are what every query of a dashboard is matched on: the job, instance and
// (where there is one) cluster variables the generator adds.
func (c Config) dashboardMatchers() []string {
	m := []string{`job=~"$job"`, `instance=~"$instance"`}
	if c.ClusterLabel != "" {
		m = append(m, c.ClusterLabel+`=~"$cluster"`)
	}
	return m
}

// scopeVariables are the cluster, job and instance variables, each narrowed by the ones
// before it; job and instance as dashboard-linter wants them (multi, All = ".+"). The cluster
// variable's All is ".*" so that a Prometheus without a cluster label matches everything.
func (c Config) scopeVariables() []any {
	var vars []any
	scope := c.SpecwatchSelector
	if c.ClusterLabel != "" {
		vars = append(vars, queryVariable("cluster", "Cluster", fmt.Sprintf("label_values(specwatch_build_info{%s}, %s)", scope, c.ClusterLabel), ".*"))
		scope += "," + c.ClusterLabel + `=~"$cluster"`
	}
	vars = append(vars, queryVariable("job", "Job", fmt.Sprintf("label_values(specwatch_build_info{%s}, job)", scope), ".+"))
	vars = append(vars, queryVariable("instance", "Instance", fmt.Sprintf(`label_values(specwatch_build_info{%s,job=~"$job"}, instance)`, scope), ".+"))
	return vars
}

func queryVariable(name, label, query, allValue string) map[string]any {
	return map[string]any{
		"name":        name,
		"label":       label,
		"type":        "query",
		"datasource":  map[string]any{"type": "prometheus", "uid": "${datasource}"},
		"query":       map[string]any{"query": query, "refId": "PrometheusVariableQueryEditor-VariableQuery"},
		"definition":  query,
		"multi":       true,
		"includeAll":  true,
		"allValue":    allValue,
		"current":     map[string]any{"selected": true, "text": []any{"All"}, "value": []any{"$__all"}},
		"options":     []any{},
		"refresh":     2,
		"regex":       "",
		"sort":        1,
		"hide":        0,
		"skipUrlSync": false,
	}
}

var labelValuesRE = regexp.MustCompile(`^label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$`)

// renderDashboard turns a dashboard source into the shipped dashboard: the scope variables
// after the data source variable, every query (panel targets, annotations, the source's own
// variables) matched on them, the config's editable and refresh. extra are placeholders
// beside the config's (the anomaly kinds of each severity). Keys come out sorted, two spaces
// indented, so that a render is byte-stable.
func renderDashboard(name string, src []byte, c Config, extra map[string]string) ([]byte, error) {
	// %(key)s in a source query, JSON-escaped (a selector's quotes).
	vals := map[string]string{}
	for k, v := range extra {
		q, _ := json.Marshal(v)
		vals[k] = string(q[1 : len(q)-1])
	}
	for k, v := range c.values() {
		q, _ := json.Marshal(v)
		vals[k] = string(q[1 : len(q)-1])
	}
	src, err := substitute(name, src, vals)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var d map[string]any
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	matchers := c.dashboardMatchers()
	inject := func(where string, expr string) (string, error) {
		out, err := injectMatchers(expr, matchers)
		if err != nil {
			return "", fmt.Errorf("%s %s: %w", name, where, err)
		}
		return out, nil
	}

	templating, _ := d["templating"].(map[string]any)
	list, _ := templating["list"].([]any)
	var vars []any
	placed := false
	for _, v := range list {
		vm, _ := v.(map[string]any)
		vars = append(vars, v)
		switch vm["name"] {
		case "cluster", "job", "instance":
			return nil, fmt.Errorf("%s: variable %s is the mixin's; drop it from the source", name, vm["name"])
		}
		if vm["type"] == "datasource" && !placed {
			vars = append(vars, c.scopeVariables()...)
			placed = true
			continue
		}
		if vm["type"] != "query" {
			continue
		}
		q, _ := vm["query"].(map[string]any)
		raw, _ := q["query"].(string)
		m := labelValuesRE.FindStringSubmatch(strings.TrimSpace(raw))
		if m == nil {
			return nil, fmt.Errorf("%s: variable %v: query %q is not label_values(selector, label)", name, vm["name"], raw)
		}
		sel, err := inject(fmt.Sprintf("variable %v", vm["name"]), m[1])
		if err != nil {
			return nil, err
		}
		query := fmt.Sprintf("label_values(%s, %s)", sel, m[2])
		q["query"], vm["definition"] = query, query
	}
	if !placed {
		return nil, fmt.Errorf("%s: no datasource variable to put the scope variables after", name)
	}
	templating["list"] = vars

	if err := walkPanels(d["panels"], func(p map[string]any) error {
		targets, _ := p["targets"].([]any)
		for _, t := range targets {
			tm, _ := t.(map[string]any)
			expr, ok := tm["expr"].(string)
			if !ok {
				continue
			}
			out, err := inject(fmt.Sprintf("panel %v %q %v", p["id"], p["title"], tm["refId"]), expr)
			if err != nil {
				return err
			}
			tm["expr"] = out
		}
		return nil
	}); err != nil {
		return nil, err
	}
	annotations, _ := d["annotations"].(map[string]any)
	alist, _ := annotations["list"].([]any)
	for _, a := range alist {
		am, _ := a.(map[string]any)
		if expr, ok := am["expr"].(string); ok {
			out, err := inject(fmt.Sprintf("annotation %q", am["name"]), expr)
			if err != nil {
				return nil, err
			}
			am["expr"] = out
		}
	}
	d["editable"] = c.Dashboards.Editable
	d["refresh"] = c.Dashboards.Refresh

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// walkPanels calls f on every panel, those inside rows included.
func walkPanels(v any, f func(map[string]any) error) error {
	ps, _ := v.([]any)
	for _, p := range ps {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		if err := f(pm); err != nil {
			return err
		}
		if err := walkPanels(pm["panels"], f); err != nil {
			return err
		}
	}
	return nil
}
