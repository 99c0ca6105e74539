package main

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"
)

// Config is the mixin's _config: what an operator tunes to fit specwatch's rules and
// dashboards to their Prometheus. Every key is required, so that a typo or a key dropped by a
// merge is an error rather than a silently different rule.
type Config struct {
	// SpecwatchSelector selects the scrape (or push) jobs specwatch's targets are under, as
	// label matchers without braces: `job=~"specwatch.*"`.
	SpecwatchSelector string `yaml:"specwatchSelector"`
	// ClusterLabel is the label that tells clusters apart in a Prometheus that holds several
	// (external or target label); the recording rules keep it and the dashboards get a
	// variable on it. Empty: no cluster label anywhere.
	ClusterLabel string `yaml:"clusterLabel"`
	// JournalLagSeconds: SpecWatchJournalLag fires above this lag.
	JournalLagSeconds int `yaml:"journalLagSeconds"`
	// FileLagBytes: SpecWatchFileLag fires above this many bytes written and not yet read.
	FileLagBytes int64 `yaml:"fileLagBytes"`
	// EngineLookback: SpecWatchDown pages (critical) where engine series existed this recently.
	EngineLookback string `yaml:"engineLookback"`
	// TargetsLookback: SpecWatchTargetsMissing and SpecWatchPushesStopped consider targets
	// and pushers seen this recently.
	TargetsLookback string `yaml:"targetsLookback"`
	// ReportScheme is the scheme of the report link in alert descriptions
	// (SCHEME://instance/api/v1/report): http, or https behind a TLS proxy.
	ReportScheme string `yaml:"reportScheme"`
	Dashboards   struct {
		Editable bool   `yaml:"editable"`
		Refresh  string `yaml:"refresh"`
	} `yaml:"dashboards"`
}

var labelNameRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// LoadConfig reads and checks the config at path.
func LoadConfig(path string) (Config, error) {
	var c Config
	b, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if err := c.check(); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

func (c Config) check() error {
	if c.SpecwatchSelector == "" {
		return fmt.Errorf("specwatchSelector: empty (use job=~\".+\" to select every job)")
	}
	if _, err := newParser().ParseMetricSelector("{" + c.SpecwatchSelector + "}"); err != nil {
		return fmt.Errorf("specwatchSelector %q: %w", c.SpecwatchSelector, err)
	}
	if c.ClusterLabel != "" && !labelNameRE.MatchString(c.ClusterLabel) {
		return fmt.Errorf("clusterLabel %q: not a label name", c.ClusterLabel)
	}
	if c.JournalLagSeconds <= 0 {
		return fmt.Errorf("journalLagSeconds %d: want > 0", c.JournalLagSeconds)
	}
	if c.FileLagBytes <= 0 {
		return fmt.Errorf("fileLagBytes %d: want > 0", c.FileLagBytes)
	}
	if c.ReportScheme != "http" && c.ReportScheme != "https" {
		return fmt.Errorf("reportScheme %q: want http or https", c.ReportScheme)
	}
	for key, v := range map[string]string{"engineLookback": c.EngineLookback, "targetsLookback": c.TargetsLookback, "dashboards.refresh": c.Dashboards.Refresh} {
		if d, err := model.ParseDuration(v); err != nil || d <= 0 {
			return fmt.Errorf("%s %q: want a positive Prometheus duration (30s, 6h, 1d)", key, v)
		}
	}
	return nil
}

// values are what %(name)s stands for in the rule sources.
func (c Config) values() map[string]string {
	groupCluster := ""
	if c.ClusterLabel != "" {
		groupCluster = c.ClusterLabel + ", "
	}
	return map[string]string{
		"specwatchSelector": c.SpecwatchSelector,
		"clusterLabel":      c.ClusterLabel,
		// groupCluster starts a `by (...)` list so that aggregations keep the cluster label.
		"groupCluster":      groupCluster,
		"journalLagSeconds": strconv.Itoa(c.JournalLagSeconds),
		"fileLagBytes":      strconv.FormatInt(c.FileLagBytes, 10),
		"engineLookback":    c.EngineLookback,
		"targetsLookback":   c.TargetsLookback,
		"reportScheme":      c.ReportScheme,
	}
}

var placeholderRE = regexp.MustCompile(`%\(([^)]*)\)s`)

// substitute replaces every %(name)s of src with its value; an unknown name, or a "%(" left
// that is not a placeholder, is an error naming the line.
func substitute(name string, src []byte, vals map[string]string) ([]byte, error) {
	var errs []error
	out := placeholderRE.ReplaceAllFunc(src, func(m []byte) []byte {
		key := string(placeholderRE.FindSubmatch(m)[1])
		v, ok := vals[key]
		if !ok {
			line := 1 + bytes.Count(src[:bytes.Index(src, m)], []byte("\n"))
			errs = append(errs, fmt.Errorf("%s:%d: unknown placeholder %%(%s)s", name, line, key))
		}
		return []byte(v)
	})
	if len(errs) > 0 {
		return nil, errs[0]
	}
	if i := bytes.Index(out, []byte("%(")); i >= 0 {
		line := 1 + bytes.Count(out[:i], []byte("\n"))
		return nil, fmt.Errorf("%s:%d: %%( that is not a %%(name)s placeholder", name, line)
	}
	return out, nil
}
