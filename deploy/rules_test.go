package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/model"
)

type ruleFile struct {
	Groups []struct {
		Name     string `yaml:"name"`
		Interval string `yaml:"interval"`
		Rules    []struct {
			Alert       string            `yaml:"alert"`
			Record      string            `yaml:"record"`
			Expr        string            `yaml:"expr"`
			For         string            `yaml:"for"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

func loadRuleFile(t testing.TB, path string) ruleFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rf ruleFile
	if err := yaml.Unmarshal(b, &rf); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rf
}

// TestRulesPromtoolCheck: `promtool check rules` accepts every rule file.
func TestRulesPromtoolCheck(t *testing.T) {
	t.Parallel()
	promtool := testharness.NeedTool(t, "promtool", "prometheus")
	r := testharness.RunCmd(t, time.Minute, "", nil, promtool, append([]string{"check", "rules"}, testharness.RuleFiles(t)...)...)
	if r.Err != nil || r.Code != 0 {
		t.Fatalf("promtool check rules: exit %d %v\n%s", r.Code, r.Err, r.Output())
	}
	t.Log(r.Output())
}

// TestRulesPromtoolUnitTests runs deploy/prometheus/tests/*.yml with `promtool test rules`.
func TestRulesPromtoolUnitTests(t *testing.T) {
	t.Parallel()
	promtool := testharness.NeedTool(t, "promtool", "prometheus")
	tests, _ := filepath.Glob(testharness.DeployPath(t, "prometheus", "tests", "*.yml"))
	if len(tests) == 0 {
		t.Fatal("no promtool tests in deploy/prometheus/tests")
	}
	r := testharness.RunCmd(t, 2*time.Minute, testharness.DeployPath(t, "prometheus", "tests"), nil, promtool, append([]string{"test", "rules"}, tests...)...)
	if r.Err != nil || r.Code != 0 {
		t.Fatalf("promtool test rules: exit %d %v\n%s", r.Code, r.Err, r.Output())
	}
	t.Log(r.Output())
}

// TestRulesVMAlert: vmalert (VictoriaMetrics) loads the same files unchanged, templates
// included: -dryRun parses the rules, the MetricsQL expressions and the annotation templates.
func TestRulesVMAlert(t *testing.T) {
	t.Parallel()
	vmalert := testharness.NeedTool(t, "vmalert", "victoria-metrics")
	args := []string{"-dryRun", "-loggerLevel=ERROR"}
	for _, f := range testharness.RuleFiles(t) {
		args = append(args, "-rule="+f)
	}
	r := testharness.RunCmd(t, time.Minute, "", nil, vmalert, args...)
	if r.Err != nil || r.Code != 0 || strings.Contains(r.Output(), "fatal") {
		t.Fatalf("vmalert -dryRun: exit %d %v\n%s", r.Code, r.Err, r.Output())
	}

	// The check is real: vmalert refuses a template function it does not have.
	bad := filepath.Join(t.TempDir(), "bad.yml")
	os.WriteFile(bad, []byte("groups:\n  - name: x\n    rules:\n      - alert: X\n        expr: up == 0\n        annotations:\n          summary: '{{ nosuchfunc }}'\n"), 0o644)
	r = testharness.RunCmd(t, time.Minute, "", nil, vmalert, "-dryRun", "-rule="+bad)
	if r.Code == 0 {
		t.Errorf("vmalert -dryRun accepted an undefined template function:\n%s", r.Output())
	}
}

var alertForKind = map[string]string{
	"commit_len_stuck":     "SpecDecCommitLenStuck",
	"metrics_inconsistent": "SpecDecMetricsInconsistent",
	"acceptance_drop":      "SpecDecAcceptanceDrop",
	"step_time_regression": "SpecDecStepTimeRegression",
	"throughput_collapse":  "SpecDecThroughputCollapse",
	"stale":                "SpecDecStale",
	"format_drift":         "SpecDecFormatDrift",
	"rank_skew":            "SpecDecRankSkew",
	"restart_regression":   "SpecDecRestartRegression",
	"speculation_disabled": "SpecDecSpeculationDisabled",
}

const runbookURL = "https://github.com/specwatch/specwatch/blob/main/docs/runbook.md#"

// TestAlertsMatchModel: one alert per anomaly kind of the model, on
// specwatch_anomaly_active{kind} == 1, with the model's severity, a short `for:` for the
// critical ones, the annotations and a runbook section that exists.
func TestAlertsMatchModel(t *testing.T) {
	t.Parallel()
	rf := loadRuleFile(t, testharness.DeployPath(t, "prometheus", "specwatch-alerts.yml"))
	anchors := runbookAnchors(t)
	alerts := map[string]bool{}
	for _, g := range rf.Groups {
		if g.Interval != "15s" {
			t.Errorf("group %s: interval %q, want 15s (the latency budget assumes it; vmalert's default is 1m)", g.Name, g.Interval)
		}
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts[r.Alert] = true
			for _, a := range []string{"summary", "description", "runbook_url"} {
				if r.Annotations[a] == "" {
					t.Errorf("%s: no %s annotation", r.Alert, a)
				}
			}
			anchor, ok := strings.CutPrefix(r.Annotations["runbook_url"], runbookURL)
			if !ok || !anchors[anchor] {
				t.Errorf("%s: runbook_url %q is not a section of docs/runbook.md", r.Alert, r.Annotations["runbook_url"])
			}
			if s := r.Labels["severity"]; s != "critical" && s != "warning" {
				t.Errorf("%s: severity %q", r.Alert, s)
			}
		}
	}
	for k := model.AnomalyKind(0); k < model.NumAnomalyKinds; k++ {
		name, ok := alertForKind[k.String()]
		if !ok {
			t.Errorf("anomaly kind %s has no alert (add it to specwatch-alerts.yml and to alertForKind)", k)
			continue
		}
		found := false
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				if r.Alert != name {
					continue
				}
				found = true
				want := `specwatch_anomaly_active{kind="` + k.String() + `"} == 1`
				if strings.TrimSpace(r.Expr) != want {
					t.Errorf("%s: expr %q, want %q", name, r.Expr, want)
				}
				if r.Labels["severity"] != k.Severity() {
					t.Errorf("%s: severity %q, the model says %q (model/anomaly.go)", name, r.Labels["severity"], k.Severity())
				}
				d, err := time.ParseDuration(r.For)
				if err != nil {
					t.Errorf("%s: for %q: %v", name, r.For, err)
				}
				if k.Severity() == "critical" && d > time.Minute {
					t.Errorf("%s: for %s; critical alerts keep for ≤ 1m (150 s stuck-drafter budget)", name, d)
				}
				if d < 30*time.Second {
					t.Errorf("%s: for %s; at least two evaluations must agree (a one-sample blip must not fire)", name, d)
				}
			}
		}
		if !found {
			t.Errorf("no alert %s for anomaly kind %s", name, k)
		}
	}
	for _, a := range []string{"SpecWatchDown", "SpecWatchJournalLag"} {
		if !alerts[a] {
			t.Errorf("no alert %s", a)
		}
	}
}

// TestAlertsHavePromtoolTests: the promtool tests make every alert fire (with its labels and
// expanded annotations) and also check it silent somewhere.
func TestAlertsHavePromtoolTests(t *testing.T) {
	t.Parallel()
	var tf struct {
		Tests []struct {
			Name  string `yaml:"name"`
			Cases []struct {
				Alertname string `yaml:"alertname"`
				ExpAlerts []struct {
					Annotations map[string]string `yaml:"exp_annotations"`
				} `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	b, err := os.ReadFile(testharness.DeployPath(t, "prometheus", "tests", "specwatch-alerts.test.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &tf); err != nil {
		t.Fatal(err)
	}
	firing, silent := map[string]int{}, map[string]int{}
	for _, tc := range tf.Tests {
		for _, c := range tc.Cases {
			if len(c.ExpAlerts) == 0 {
				silent[c.Alertname]++
				continue
			}
			firing[c.Alertname]++
			for _, a := range c.ExpAlerts {
				if a.Annotations["description"] == "" {
					t.Errorf("%s (%s): a firing case without the expanded description", c.Alertname, tc.Name)
				}
			}
		}
	}
	var names []string
	for _, g := range loadRuleFile(t, testharness.DeployPath(t, "prometheus", "specwatch-alerts.yml")).Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			names = append(names, r.Alert)
			if firing[r.Alert] == 0 {
				t.Errorf("%s: no promtool case where it fires", r.Alert)
			}
			if silent[r.Alert] == 0 {
				t.Errorf("%s: no promtool case where it stays silent", r.Alert)
			}
		}
	}
	sort.Strings(names)
	t.Logf("promtool coverage (firing/silent cases): %s", func() string {
		var s []string
		for _, n := range names {
			s = append(s, n+" "+itoa(firing[n])+"/"+itoa(silent[n]))
		}
		return strings.Join(s, ", ")
	}())
}

func itoa(n int) string { return strconv.Itoa(n) }

var headingRE = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*$`)

// runbookAnchors are the GitHub anchors of docs/runbook.md's headings.
func runbookAnchors(t testing.TB) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testharness.RepoRoot(t), "docs", "runbook.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range headingRE.FindAllStringSubmatch(string(b), -1) {
		out[githubAnchor(m[1])] = true
	}
	return out
}

// githubAnchor is GitHub's heading slug: lower case, spaces to hyphens, punctuation dropped.
func githubAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ' || r == '-':
			b.WriteRune('-')
		case r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestRunbookSections: every alert's section has the four parts the on-call reads.
func TestRunbookSections(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(testharness.RepoRoot(t), "docs", "runbook.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := strings.Split(string(b), "\n## ")
	bySlug := map[string]string{}
	for _, s := range sections[1:] {
		title, _, _ := strings.Cut(s, "\n")
		bySlug[githubAnchor(title)] = s
	}
	for _, g := range loadRuleFile(t, testharness.DeployPath(t, "prometheus", "specwatch-alerts.yml")).Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			s, ok := bySlug[strings.ToLower(r.Alert)]
			if !ok {
				t.Errorf("docs/runbook.md: no section %q", r.Alert)
				continue
			}
			for _, part := range []string{"**Meaning.**", "**Impact.**", "**Diagnosis.**", "**Mitigation.**"} {
				if !strings.Contains(s, part) {
					t.Errorf("docs/runbook.md %s: no %s", r.Alert, part)
				}
			}
			// The impact paragraph states the severity the rule pages with, so an operator
			// reading it knows whether to wake up; a rule whose severity changes must change it.
			_, impact, _ := strings.Cut(s, "**Impact.**")
			impact, _, _ = strings.Cut(impact, "\n\n")
			sev := r.Labels["severity"]
			if !strings.Contains(strings.ToLower(impact), sev) {
				t.Errorf("docs/runbook.md %s: the impact does not say %q, the rule's severity: %q", r.Alert, sev, impact)
			}
		}
	}
}

// TestAlertsTable keeps deploy/README.md's table of alerts equal to the rendered rules: each
// alert with its `for` and severity, in the rules' order.
func TestAlertsTable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(testharness.DeployPath(t, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| \[(\w+)\]\(\.\./docs/runbook\.md#(\w+)\) \| (\w+) \| (\w+) \|$`)
	var have []string
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		if m[2] != strings.ToLower(m[1]) {
			t.Errorf("deploy/README.md: %s links to #%s", m[1], m[2])
		}
		have = append(have, m[1]+" "+m[3]+" "+m[4])
	}
	var want []string
	for _, g := range loadRuleFile(t, testharness.DeployPath(t, "prometheus", "specwatch-alerts.yml")).Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				f := r.For
				if f == "" {
					f = "0s"
				}
				want = append(want, r.Alert+" "+f+" "+r.Labels["severity"])
			}
		}
	}
	if strings.Join(have, "\n") != strings.Join(want, "\n") {
		t.Errorf("deploy/README.md's alerts table (alert for severity):\n%s\nthe rules:\n%s", strings.Join(have, "\n"), strings.Join(want, "\n"))
	}
}
