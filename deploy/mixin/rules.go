package main

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// ruleFile is a rule file as the generator and the lint read it.
type ruleFile struct {
	Groups []struct {
		Name  string     `yaml:"name"`
		Rules []lintRule `yaml:"rules"`
	} `yaml:"groups"`
}

// renderRules fills the placeholders of a rule source and checks the result: YAML of rule
// groups, every rule named, every expression valid PromQL. The text is kept as written
// (comments, folded expressions), so the rendered file reads like the source.
func renderRules(name string, src []byte, c Config) ([]byte, error) {
	out, err := substitute(name, src, c.values())
	if err != nil {
		return nil, err
	}
	var rf ruleFile
	if err := yaml.Unmarshal(out, &rf); err != nil {
		return nil, fmt.Errorf("%s rendered: %w", name, err)
	}
	if len(rf.Groups) == 0 {
		return nil, fmt.Errorf("%s rendered: no rule groups", name)
	}
	for _, g := range rf.Groups {
		for i, r := range g.Rules {
			if (r.Alert == "") == (r.Record == "") {
				return nil, fmt.Errorf("%s group %s rule %d: wants exactly one of alert and record", name, g.Name, i)
			}
			if _, err := newParser().ParseExpr(r.Expr); err != nil {
				return nil, fmt.Errorf("%s rule %s%s: expr %q: %w", name, r.Alert, r.Record, r.Expr, err)
			}
		}
	}
	header := fmt.Sprintf("# Generated from deploy/mixin/%s with deploy/mixin/config.yaml: edit those and run\n# `go -C deploy/mixin run .` (docs/mixin.md), never this file.\n", name)
	return append([]byte(header), out...), nil
}
