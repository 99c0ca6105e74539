//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/sim"
)

// operatorScenario is a vLLM engine whose drafter sticks at commit length 1.00 from the 6th to
// the 12th of its 20 minutes, its lines ending about now.
func operatorScenario(now time.Time) sim.Scenario {
	return sim.Scenario{Name: "operator", Seed: 7, Start: now.Add(-20 * time.Minute).Truncate(time.Second), Duration: 20 * time.Minute,
		Format: sim.FormatRaw, Services: []sim.Service{{Engine: sim.VLLM, Ranks: []string{"Engine 000"},
			Step:       sim.StepModel{A: 0.018, B: 4e-7},
			Workload:   sim.Workload{Concurrency: 8, ArrivalMean: 4 * time.Second, PromptMin: 500, PromptMax: 6000, OutputMin: 100, OutputMax: 1500},
			Acceptance: sim.Acceptance{DraftLen: 3, Phases: []sim.Phase{{Name: "chat", Mean: 2.8, Weight: 1}}},
			Faults:     []sim.Fault{{Kind: sim.StuckAtOne, Start: 6 * time.Minute, Duration: 6 * time.Minute}}}}}
}

// logEvent is one line of the daemon's JSON log.
type logEvent map[string]any

func (e logEvent) str(k string) string { s, _ := e[k].(string); return s }

func readLog(t *testing.T, path string) []logEvent {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []logEvent
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e logEvent
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// TestOperatorPath is the operator's first hour: the daemon started as the packaged unit
// starts it (the shipped config file), following an engine's log file in which the drafter
// sticks and recovers. Its own log says, at info level, that the series appeared and that
// commit_len_stuck opened and cleared (with its summary); the status page and /metrics show the
// acceptance per draft position, and Prometheus, scraping it, answers the dashboards'
// per-position query.
//
// It runs the binary this tree builds and deploy/specwatch.yaml; scripts/operator-path.sh
// installs the Debian package and runs it on the installed /usr/bin/specwatch and
// /etc/specwatch/specwatch.yaml (SPECWATCH_OPERATOR_BIN, SPECWATCH_OPERATOR_CONFIG).
func TestOperatorPath(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the daemon and Prometheus")
	}
	t.Parallel()
	bin, cfg := os.Getenv("SPECWATCH_OPERATOR_BIN"), os.Getenv("SPECWATCH_OPERATOR_CONFIG")
	if bin == "" {
		bin = testharness.BuildSpecwatch(t)
	}
	if cfg == "" {
		cfg = testharness.DeployPath(t, "specwatch.yaml")
	}
	t.Logf("%s run --config.file %s", bin, cfg)
	dir := t.TempDir()
	logs, state := filepath.Join(dir, "logs"), filepath.Join(dir, "state")
	must(t, mkdirs(logs, state))
	engineLog := filepath.Join(logs, "vllm.log")
	must(t, os.WriteFile(engineLog, nil, 0o644))
	daemonLog := filepath.Join(dir, "specwatch.log")
	d := testharness.NewDaemon(t, bin, testharness.FreeAddr(t), state, daemonLog,
		"--config.file", cfg, "--file", filepath.Join(logs, "*.log"))
	d.Start()

	// The engine writes its 20 minutes at 40 lines a second: the detectors judge by samples,
	// the stamps are the engine's.
	pr, pw := io.Pipe()
	go func() { _, err := sim.Generate(operatorScenario(time.Now()), pw, nil); pw.CloseWithError(err) }()
	f, err := os.OpenFile(engineLog, os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	lines := bufio.NewScanner(pr)
	n := 0
	for lines.Scan() {
		if _, err := f.Write(append(lines.Bytes(), '\n')); err != nil {
			t.Fatal(err)
		}
		if n++; n%40 == 0 {
			time.Sleep(time.Second)
		}
	}
	must(t, f.Close())
	t.Logf("the engine wrote %d lines", n)

	var opened, cleared, appeared bool
	deadline := time.Now().Add(time.Minute)
	for !(opened && cleared && appeared) && time.Now().Before(deadline) {
		time.Sleep(time.Second)
		opened, cleared, appeared = false, false, false
		for _, e := range readLog(t, daemonLog) {
			if e.str("level") != "info" && e.str("level") != "warn" {
				continue
			}
			msg := e.str("message")
			switch {
			case strings.Contains(msg, "series") && strings.Contains(msg, "appeared") && e.str("unit") != "":
				appeared = true
			case strings.Contains(msg, "anomaly opened") && e.str("kind") == "commit_len_stuck":
				opened = e.str("summary") != ""
			case strings.Contains(msg, "anomaly cleared") && e.str("kind") == "commit_len_stuck":
				cleared = true
			}
		}
	}
	for _, e := range readLog(t, daemonLog) {
		if m := e.str("message"); strings.HasPrefix(m, "series ") || strings.HasPrefix(m, "anomaly ") {
			b, _ := json.Marshal(e)
			t.Logf("daemon: %s", b)
		}
	}
	if !(opened && cleared && appeared) {
		t.Errorf("the daemon's log: series appeared %v, commit_len_stuck opened %v, cleared %v:\n%s", appeared, opened, cleared, testharness.Tail(daemonLog, 6000))
	}

	page := httpGet(t, "http://"+d.Addr()+"/")
	if !strings.Contains(page, "acceptance per draft position") {
		t.Error("the status page shows no acceptance per draft position")
	}
	prom := testharness.StartPrometheus(t, testharness.PrometheusOptions{Targets: []string{d.Addr()}, ScrapeInterval: time.Second})
	var got int
	for deadline := time.Now().Add(30 * time.Second); got == 0 && time.Now().Before(deadline); time.Sleep(time.Second) {
		res, err := testharness.QueryProm(prom.URL, `specwatch_position_accept_ratio{engine="vllm"}`)
		must(t, err)
		got = len(res)
	}
	if got != 3 {
		t.Errorf("Prometheus has %d per-position acceptance series of the vLLM rank, want 3 (its draft length)", got)
	}
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	must(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(t, err)
	return string(b)
}
