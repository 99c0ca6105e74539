package web

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/exporter/exportertest"
	"github.com/specwatch/specwatch/internal/testkit/testdemo"
	"github.com/specwatch/specwatch/internal/testkit/testproc"
)

// per is docs/metrics.md's label set of per-series metrics, less the optional ones.
var per = []string{"engine", "host", "rank", "unit"}

// optional are the per-series labels that are empty (and so dropped by Prometheus) where the
// series has no such dimension or container.
var optional = []string{"attn_cp", "container", "dp", "ep", "namespace", "pod", "pp", "tp"}

// designMetrics are docs/metrics.md's metrics (plus the ones this package adds) with the label
// names each must carry, sorted; the histogram is listed by its family name.
var designMetrics = map[string][]string{
	"specwatch_commit_length_tokens":                 per,
	"specwatch_accept_ratio":                         per,
	"specwatch_accepted_depth_tokens":                per,
	"specwatch_context_tokens":                       per,
	"specwatch_kv_cache_usage_ratio":                 per,
	"specwatch_running_requests":                     per,
	"specwatch_step_seconds":                         per,
	"specwatch_generation_tokens_per_second":         per,
	"specwatch_model_step_fixed_seconds":             per,
	"specwatch_model_step_seconds_per_context_token": per,
	"specwatch_model_step_kv_cache_slope_seconds":    per,
	"specwatch_model_tokens_per_second":              per,
	"specwatch_model_forecast_tokens_per_second":     {"context", "engine", "host", "rank", "unit"},
	"specwatch_throughput_attribution_log_ratio":     {"engine", "factor", "host", "rank", "unit"},
	"specwatch_anomaly_active":                       {"engine", "host", "kind", "rank", "unit"},
	"specwatch_last_sample_timestamp_seconds":        per,
	"specwatch_journal_lag_seconds":                  {},
	"specwatch_step_duration_seconds":                per,
	"specwatch_samples_total":                        {"engine", "host", "kind", "rank", "unit"},
	"specwatch_anomalies_total":                      {"engine", "host", "kind", "rank", "unit"},
	"specwatch_lines_total":                          {"result"},
	"specwatch_series_dropped_total":                 {},
	"specwatch_cursor_save_failures_total":           {},
	"specwatch_push_failures_total":                  {},
	"specwatch_journal_reopens_total":                {},
	"specwatch_journal_cursor_missing_total":         {},
	"specwatch_journal_lost_entries_total":           {},
	"specwatch_journal_skipped_entries_total":        {"reason"},
	"specwatch_journal_bad_files_total":              {},
	"specwatch_build_info":                           {"goversion", "revision", "version"},
	"go_goroutines":                                  {},
	"process_cpu_seconds_total":                      {},
}

// TestPromtoolCheckMetrics lints a /metrics scrape of the demo data with promtool (Debian
// package prometheus): names, units, HELP, counter suffixes. It must print nothing.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool := testproc.NeedBinary(t, "promtool", "prometheus")
	l, m := testdemo.Source(t, func(src exporter.Source) *exporter.Metrics { return exportertest.NewMetrics(t, src) })
	w := do(t, NewServer(ServerOptions{Source: l, Metrics: m.Registry()}).Handler(), "GET", "/metrics", nil)
	if w.Code != 200 {
		t.Fatalf("/metrics: %d", w.Code)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(w.Body.Bytes())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out.String())
	}
	for name := range designMetrics {
		if !strings.Contains(w.Body.String(), "\n"+name) {
			t.Errorf("scrape lacks %s", name)
		}
	}
}
