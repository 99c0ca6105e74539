package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// TestAlertPathMini drives the shipped alert rules through a real Prometheus and Alertmanager
// to a webhook: a static /metrics flips specwatch_anomaly_active{kind="commit_len_stuck"} to 1,
// the webhook must receive SpecDecCommitLenStuck firing (with its description expanded from
// live queries), then resolved after the flip back to 0. Timings are shortened (1 s scrape and
// evaluation, group_wait 1 s); the rule's own `for: 30s` is kept, so the measured time is what
// production adds on top of its 15 s scrape/evaluation and 10 s group_wait.
func TestAlertPathMini(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Prometheus and Alertmanager for about 40 s")
	}
	t.Parallel()
	testharness.NeedTool(t, "prometheus", "prometheus")
	testharness.NeedTool(t, "prometheus-alertmanager", "prometheus-alertmanager")

	var active atomic.Int32
	metrics := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		a := active.Load()
		commit := 3.2
		if a == 1 {
			commit = 1
		}
		lbl := `engine="sglang",host="h",rank="TP0",unit="u"`
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprintf(w, "# TYPE specwatch_anomaly_active gauge\n")
		fmt.Fprintf(w, "specwatch_anomaly_active{%s,kind=\"commit_len_stuck\"} %d\n", lbl, a)
		fmt.Fprintf(w, "specwatch_anomaly_active{%s,kind=\"throughput_collapse\"} 0\n", lbl)
		fmt.Fprintf(w, "# TYPE specwatch_commit_length_tokens gauge\nspecwatch_commit_length_tokens{%s} %g\n", lbl, commit)
		fmt.Fprintf(w, "# TYPE specwatch_running_requests gauge\nspecwatch_running_requests{%s} 4\n", lbl)
		fmt.Fprintf(w, "# TYPE specwatch_generation_tokens_per_second gauge\nspecwatch_generation_tokens_per_second{%s} 21.5\n", lbl)
	}))
	defer metrics.Close()

	hook := testharness.StartWebhook(t)
	am := testharness.StartAlertmanager(t, testharness.AlertmanagerOptions{
		WebhookURL: hook.URL, GroupWait: time.Second, GroupInterval: time.Second,
	})
	prom := testharness.StartPrometheus(t, testharness.PrometheusOptions{
		Targets:        []string{strings.TrimPrefix(metrics.URL, "http://")},
		RuleFiles:      testharness.RuleFiles(t),
		ScrapeInterval: time.Second, EvalInterval: time.Second,
		Alertmanager: am.URL,
	})

	// Baseline: the target is scraped and the anomaly is 0.
	deadline := time.Now().Add(30 * time.Second)
	for len(testharness.PromQuery(t, prom.URL, `specwatch_anomaly_active{kind="commit_len_stuck"} == 0`)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus at %s has not scraped %s", prom.URL, metrics.URL)
		}
		time.Sleep(200 * time.Millisecond)
	}

	isStuck := func(status string) func(testharness.WebhookAlert) bool {
		return func(a testharness.WebhookAlert) bool {
			return a.Status == status && a.Labels["alertname"] == "SpecDecCommitLenStuck"
		}
	}
	flip := time.Now()
	active.Store(1)
	msg, alert, ok := hook.WaitFor(flip, 90*time.Second, isStuck("firing"))
	if !ok {
		t.Fatalf("no SpecDecCommitLenStuck firing notification within 90 s; received %+v", hook.Messages())
	}
	fired := msg.Received.Sub(flip)
	t.Logf("flip to 1 → webhook firing: %.1f s (for: 30s + 1 s scrape + 1 s evaluation + 1 s group_wait)", fired.Seconds())
	t.Logf("at production settings the same path adds at most 30 + 15 + 15 + 10 s = 70 s to the daemon's detection")
	if fired < 29*time.Second || fired > 60*time.Second {
		t.Errorf("firing after %s, want about 30–35 s (for: 30s)", fired)
	}
	if alert.Labels["severity"] != "critical" || alert.Labels["host"] != "h" || alert.Labels["rank"] != "TP0" {
		t.Errorf("labels %v", alert.Labels)
	}
	if d := alert.Annotations["description"]; !strings.Contains(d, "stuck at 1.00 with 4 requests running") || !strings.Contains(d, "21.5 tok/s") {
		t.Errorf("description not expanded from live queries: %q", d)
	}
	if !strings.HasSuffix(alert.Annotations["runbook_url"], "#specdeccommitlenstuck") {
		t.Errorf("runbook_url %q", alert.Annotations["runbook_url"])
	}

	flip = time.Now()
	active.Store(0)
	msg, _, ok = hook.WaitFor(flip, 60*time.Second, isStuck("resolved"))
	if !ok {
		t.Fatalf("no resolved notification within 60 s; received %+v", hook.Messages())
	}
	t.Logf("flip to 0 → webhook resolved: %.1f s", msg.Received.Sub(flip).Seconds())

	for _, m := range hook.Messages() {
		for _, a := range m.Alerts {
			if a.Labels["alertname"] != "SpecDecCommitLenStuck" {
				t.Errorf("unexpected notification: %s %v", a.Status, a.Labels)
			}
		}
	}
}
