package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// anomalyAlertRE is the expression of an anomaly kind's alert.
var anomalyAlertRE = regexp.MustCompile(`^specwatch_anomaly_active\{kind="([a-z_]+)"\} == 1$`)

// countedSeverities are the severities the fleet dashboard counts anomalies of.
var countedSeverities = []string{"critical", "warning"}

// anomalySeverities reads the rendered alerting rules and returns, for each severity, the
// anomaly kinds whose alert carries it, sorted. The alert rules are the severity table: the
// dashboards' anomaly counts by severity are rendered from it, so they cannot disagree.
func anomalySeverities(alerts []byte) (map[string][]string, error) {
	var rf ruleFile
	if err := yaml.Unmarshal(alerts, &rf); err != nil {
		return nil, fmt.Errorf("alerts: %w", err)
	}
	bySeverity := map[string][]string{}
	seen := map[string]string{}
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			m := anomalyAlertRE.FindStringSubmatch(strings.TrimSpace(r.Expr))
			if r.Alert == "" || m == nil {
				continue
			}
			kind, sev := m[1], r.Labels["severity"]
			if !slices.Contains(countedSeverities, sev) {
				return nil, fmt.Errorf("alert %s (kind %s): severity %q, want one of %v", r.Alert, kind, sev, countedSeverities)
			}
			if prev, ok := seen[kind]; ok {
				return nil, fmt.Errorf("alert %s: kind %s has a second alert (first %s)", r.Alert, kind, prev)
			}
			seen[kind] = r.Alert
			bySeverity[sev] = append(bySeverity[sev], kind)
		}
	}
	for _, sev := range countedSeverities {
		if len(bySeverity[sev]) == 0 {
			return nil, fmt.Errorf("alerts: no anomaly kind is %s; the dashboards' %s count would match nothing", sev, sev)
		}
		slices.Sort(bySeverity[sev])
	}
	return bySeverity, nil
}

// severityValues are the dashboards' %(criticalKinds)s and %(warningKinds)s: the kinds of
// each severity as a regex alternation for kind=~"…".
func severityValues(bySeverity map[string][]string) map[string]string {
	vals := map[string]string{}
	for _, sev := range countedSeverities {
		vals[sev+"Kinds"] = strings.Join(bySeverity[sev], "|")
	}
	return vals
}
