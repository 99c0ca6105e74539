package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// output is one shipped file and the source it is rendered from.
type output struct {
	src  string // under deploy/mixin
	out  string // under deploy
	dash bool   // a Grafana dashboard (else a rule file)
}

var outputs = []output{
	{"alerts.yml", "prometheus/specwatch-alerts.yml", false},
	{"recording.yml", "prometheus/specwatch-recording.yml", false},
	{"dashboards/specwatch-fleet.json", "grafana/specwatch-fleet.json", true},
	{"dashboards/specwatch-series.json", "grafana/specwatch-series.json", true},
}

// renderAll renders every output from the sources in dir with c, and lints the dashboards.
// The rule files come first: the dashboards count anomalies by the severities of the rendered
// alerts (severity.go).
func renderAll(dir string, c Config) (map[string][]byte, error) {
	res := map[string][]byte{}
	var findings []string
	var dashVals map[string]string
	for _, o := range outputs {
		src, err := os.ReadFile(filepath.Join(dir, o.src))
		if err != nil {
			return nil, err
		}
		var b []byte
		if o.dash {
			if dashVals == nil {
				bySeverity, err := anomalySeverities(res["prometheus/specwatch-alerts.yml"])
				if err != nil {
					return nil, err
				}
				dashVals = severityValues(bySeverity)
			}
			b, err = renderDashboard(o.src, src, c, dashVals)
			if err == nil {
				for _, f := range lintDashboard(filepath.Base(o.out), b, c) {
					findings = append(findings, f.String())
				}
			}
		} else {
			b, err = renderRules(o.src, src, c)
			if err == nil {
				for _, f := range lintRules(filepath.Base(o.out), b) {
					findings = append(findings, f.String())
				}
			}
		}
		if err != nil {
			return nil, err
		}
		res[o.out] = b
	}
	if len(findings) > 0 {
		return nil, fmt.Errorf("lint, %d findings:\n  %s", len(findings), strings.Join(findings, "\n  "))
	}
	return res, nil
}

// stale names the outputs under deployDir that differ from rendered.
func stale(deployDir string, rendered map[string][]byte) []string {
	var out []string
	for _, o := range outputs {
		have, err := os.ReadFile(filepath.Join(deployDir, o.out))
		if err != nil || !bytes.Equal(have, rendered[o.out]) {
			out = append(out, "deploy/"+o.out)
		}
	}
	return out
}

func run(args []string) error {
	fs := flag.NewFlagSet("mixin", flag.ContinueOnError)
	check := fs.Bool("check", false, "render and lint, write nothing, and fail if a shipped file differs from its render")
	dir := fs.String("dir", ".", "the mixin directory (deploy/mixin): config.yaml and the sources")
	out := fs.String("out", "..", "the deploy directory the outputs go to, relative to -dir")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := LoadConfig(filepath.Join(*dir, "config.yaml"))
	if err != nil {
		return err
	}
	rendered, err := renderAll(*dir, c)
	if err != nil {
		return err
	}
	deployDir := filepath.Join(*dir, *out)
	if *check {
		if s := stale(deployDir, rendered); len(s) > 0 {
			return fmt.Errorf("%s differ from their render: edit deploy/mixin (not the outputs) and run `go -C deploy/mixin run .`", strings.Join(s, ", "))
		}
		return nil
	}
	for _, o := range outputs {
		if err := os.WriteFile(filepath.Join(deployDir, o.out), rendered[o.out], 0o644); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "mixin:", err)
		os.Exit(1)
	}
}
