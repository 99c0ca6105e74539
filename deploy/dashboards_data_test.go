package deploy

import (
	"bytes"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// TestDashboardPerPositionReturnsData runs `specwatch demo` (its default tour scrapes a
// simulated vLLM MTP engine's /metrics, which states acceptance per draft position) and a real
// Prometheus scraping it with deploy/prometheus/*.yml loaded: every dashboard query on
// specwatch_position_accept_ratio, as Grafana would send it with every variable at All, must
// return a line per position (several positions of one series), and then every other
// dashboard query must return data too (CheckDashboardQueries, as the end-to-end test does).
func TestDashboardPerPositionReturnsData(t *testing.T) {
	if testing.Short() {
		t.Skip("runs specwatch demo and Prometheus for about a minute")
	}
	testharness.NeedTool(t, "prometheus", "prometheus")
	addr := startTourDemo(t)
	prom := testharness.StartPrometheus(t, testharness.PrometheusOptions{
		Targets: []string{addr}, RuleFiles: testharness.RuleFiles(t),
		ScrapeInterval: time.Second, EvalInterval: time.Second,
	})
	var position []testharness.DashboardQuery
	for _, q := range testharness.DashboardQueries(t) {
		if strings.Contains(q.Raw, "specwatch_position_accept_ratio") {
			position = append(position, q)
		}
	}
	if len(position) < 2 {
		t.Fatalf("%d dashboard queries on specwatch_position_accept_ratio, want the series and the fleet dashboards'", len(position))
	}
	deadline := time.Now().Add(90 * time.Second)
	for _, q := range position {
		for {
			res, err := testharness.QueryProm(prom.URL, q.Expr)
			if err != nil {
				t.Fatalf("%s: %s: %v", q.Where, q.Expr, err)
			}
			positions := map[string]bool{}
			for _, s := range res {
				positions[s.Labels["position"]] = true
			}
			if len(positions) >= 2 && !positions[""] {
				t.Logf("%s: %d series, positions %v", q.Where, len(res), keys(positions))
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d series, positions %v after 90 s, want a line for each of several positions:\n    %s", q.Where, len(res), keys(positions), q.Expr)
			}
			time.Sleep(time.Second) // polling a real Prometheus that scrapes every second
		}
	}
	testharness.CheckDashboardQueries(t, prom.URL, 90*time.Second)
}

// startTourDemo runs `specwatch demo` (the tour) and returns its address once /metrics answers.
// testharness.StartDemo waits for /-/ready, which the tour does not answer while its replay runs
// ahead of the wall clock ("ingestion has not caught up"); its /metrics is complete meanwhile.
func startTourDemo(t *testing.T) string {
	t.Helper()
	addr := testharness.FreeAddr(t)
	var out bytes.Buffer
	cmd := exec.Command(testharness.BuildSpecwatch(t), "demo", "--web.listen-address", addr)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) { // polling a real process
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("specwatch demo: no /metrics after 60 s: %v\n%s", err, out.String())
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
