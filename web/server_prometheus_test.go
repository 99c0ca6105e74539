package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/exporter/exportertest"
	"github.com/specwatch/specwatch/internal/testkit/testdemo"
	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/internal/testkit/testproc"
	"github.com/specwatch/specwatch/model"
)

// startPrometheus runs the Debian prometheus binary scraping target every second, with native
// histograms enabled (so the scrape negotiates protobuf). Prometheus 2.42 cannot listen on
// port 0, so a free port is picked and the start retried if someone takes it meanwhile.
func startPrometheus(t *testing.T, target string) string {
	t.Helper()
	bin := testproc.NeedBinary(t, "prometheus", "prometheus")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	conf := fmt.Sprintf(`global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: specwatch
    static_configs: [{targets: [%q]}]
`, target)
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	var lastErr error
	for range 3 {
		base := "http://127.0.0.1:" + strconv.Itoa(testproc.FreePort(t))
		p, err := testproc.Start(t, 30*time.Second, base+"/-/ready", bin, "--config.file="+cfg,
			"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+strings.TrimPrefix(base, "http://"),
			"--enable-feature=native-histograms", "--log.level=warn")
		if err == nil {
			t.Cleanup(p.Stop)
			return base
		}
		lastErr = err
	}
	t.Fatal(lastErr)
	return ""
}

func promQuery(base, q string) ([]testproc.PromResult, error) {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []testproc.PromResult `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("query %s: %w", q, err)
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("query %s: %s", q, body.Error)
	}
	return body.Data.Result, nil
}

// TestPrometheusScrapes: a real Prometheus scrapes the server, fed by a model.Set built from
// the simulated demo, and its query API returns every metric of docs/metrics.md with its
// label names; the step histogram arrives as a native histogram.
func TestPrometheusScrapes(t *testing.T) {
	l, m := testdemo.Source(t, func(src exporter.Source) *exporter.Metrics { return exportertest.NewMetrics(t, src) })
	addr := serveTest(t, NewServer(ServerOptions{ListenAddress: "127.0.0.1:0", Source: l, Metrics: m.Registry()}))
	base := startPrometheus(t, addr)

	// Prometheus applies discovered targets on a 5 s tick, so the first scrape comes 5-6 s
	// after it is ready.
	var got map[string][]testproc.PromResult
	start := time.Now()
	err := testproc.Poll(20*time.Second, func() error {
		res, err := promQuery(base, `{__name__=~"specwatch_.*|go_goroutines|process_cpu_seconds_total"}`)
		if err != nil {
			return err
		}
		got = map[string][]testproc.PromResult{}
		for _, r := range res {
			got[r.Metric["__name__"]] = append(got[r.Metric["__name__"]], r)
		}
		for name := range designMetrics {
			if len(got[name]) == 0 {
				return fmt.Errorf("no %s yet", name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("after %v: %v", time.Since(start).Round(time.Millisecond), err)
	}
	t.Logf("all %d metric names queryable %v after Prometheus was ready", len(designMetrics), time.Since(start).Round(time.Millisecond))
	for name, want := range designMetrics {
		for _, r := range got[name] {
			var names []string
			for k := range r.Metric {
				if k != "__name__" && k != "job" && k != "instance" {
					names = append(names, k)
				}
			}
			slices.Sort(names)
			// Prometheus drops empty labels: the parallel dimensions and the container triple
			// arrive only where the series has them.
			var required []string
			for _, n := range names {
				if !slices.Contains(optional, n) {
					required = append(required, n)
				}
			}
			if !slices.Equal(required, want) {
				t.Errorf("%s: labels %v, want %v plus any of %v", name, names, want, optional)
				break
			}
		}
	}
	if h := got["specwatch_step_duration_seconds"]; len(h) > 0 && h[0].Histogram == nil {
		t.Errorf("specwatch_step_duration_seconds arrived without a native histogram: %+v", h[0])
	}
	if n, series, nk := len(got["specwatch_anomaly_active"]), len(l.Snapshot(nil)), int(model.NumAnomalyKinds); n != nk*series {
		t.Errorf("%d anomaly_active series for %d series, want %d each", n, series, nk)
	}
	checkContextQueries(t, base, l.Snapshot(nil))
}

// checkContextQueries: the series dashboard's context queries, on the demo's SGLang and vLLM
// series, give tokens for SGLang, KV cache usage for vLLM, and the step model at the current
// context for both (the end-to-end test has SGLang only, which leaves the vLLM queries empty).
func checkContextQueries(t *testing.T, base string, snaps []model.SeriesSnapshot) {
	fitted := map[string]bool{} // engine → a fitted series
	for _, s := range snaps {
		if s.FitOK && s.HasContext {
			fitted[s.Labels.Engine] = true
		}
	}
	if !fitted["sglang"] || !fitted["vllm"] {
		t.Fatalf("the demo has no fitted SGLang and vLLM series: %v", fitted)
	}
	n := 0
	for _, q := range testharness.DashboardQueries(t) {
		if !strings.Contains(q.Where, "specwatch-series.json") || !strings.Contains(q.Raw, "context") && !strings.Contains(q.Raw, "kv_cache") {
			continue
		}
		n++
		res, err := promQuery(base, q.Expr)
		if err != nil {
			t.Errorf("%s: %v", q.Where, err)
			continue
		}
		engines := map[string]bool{}
		for _, r := range res {
			engines[r.Metric["engine"]] = true
		}
		kv, tokens := strings.Contains(q.Raw, "kv_cache"), strings.Contains(q.Raw, "context_token")
		switch {
		case kv && tokens: // the step model at the current context, either kind
			if !engines["sglang"] || !engines["vllm"] {
				t.Errorf("%s: engines %v, want sglang and vllm\n    %s", q.Where, engines, q.Raw)
			}
		case kv:
			if !engines["vllm"] || engines["sglang"] {
				t.Errorf("%s: engines %v, want vllm only\n    %s", q.Where, engines, q.Raw)
			}
		case tokens:
			if !engines["sglang"] || engines["vllm"] {
				t.Errorf("%s: engines %v, want sglang only (vLLM has no token context)\n    %s", q.Where, engines, q.Raw)
			}
		}
	}
	if n < 5 {
		t.Errorf("%d context queries in the series dashboard, want at least 5", n)
	}
}
