package exporter_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/exporter/exportertest"
	"github.com/specwatch/specwatch/internal/testkit/testdemo"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
)

func TestCollectorExposition(t *testing.T) {
	m := exportertest.NewMetrics(t, exportertest.ThreeSeries())
	m.ObserveStep(7000, model.Labels{}, 0.1) // beyond the cap: counted as dropped
	const want = `
# HELP specwatch_commit_length_tokens Tokens committed per verify step (SGLang accept len, vLLM mean acceptance length, avg_commit_len), latest sample.
# TYPE specwatch_commit_length_tokens gauge
specwatch_commit_length_tokens{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service"} 2.5
specwatch_commit_length_tokens{attn_cp="",container="",dp="0",engine="vllm",ep="",host="gpu08",namespace="",pod="",pp="",rank="Engine 000",tp="",unit="vllm.service"} 3.1
# HELP specwatch_step_seconds Duration of one decode step at the latest decode point, as logged or derived as commit length x running requests / generation tok/s.
# TYPE specwatch_step_seconds gauge
specwatch_step_seconds{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service"} 0.04
# HELP specwatch_model_forecast_tokens_per_second Forecast tok/s of one request at a reference context (label context, in tokens) with the current acceptance. Not exported for vLLM series, whose context is a KV percentage.
# TYPE specwatch_model_forecast_tokens_per_second gauge
specwatch_model_forecast_tokens_per_second{attn_cp="",container="",context="131072",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service"} 8.5
specwatch_model_forecast_tokens_per_second{attn_cp="",container="",context="4096",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service"} 65.8
# HELP specwatch_throughput_attribution_log_ratio Attribution of ln(current/baseline per-request tok/s) to acceptance, context and residual (slower than the step model explains); the three factors add up to the log ratio.
# TYPE specwatch_throughput_attribution_log_ratio gauge
specwatch_throughput_attribution_log_ratio{attn_cp="",container="",dp="",engine="sglang",ep="",factor="acceptance",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service"} -0.1
specwatch_throughput_attribution_log_ratio{attn_cp="",container="",dp="",engine="sglang",ep="",factor="context",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service"} -0.2
specwatch_throughput_attribution_log_ratio{attn_cp="",container="",dp="",engine="sglang",ep="",factor="residual",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service"} 0.05
# HELP specwatch_last_sample_timestamp_seconds Unix time of the series' latest sample, from the log's timestamps (not the exporter's clock).
# TYPE specwatch_last_sample_timestamp_seconds gauge
specwatch_last_sample_timestamp_seconds{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service"} 1.7950000005e+09
specwatch_last_sample_timestamp_seconds{attn_cp="",container="",dp="0",engine="vllm",ep="",host="gpu08",namespace="",pod="",pp="",rank="Engine 000",tp="",unit="vllm.service"} 1.795000001e+09
# HELP specwatch_lines_total Input lines by parse result: matched (a sample), ignored (not an engine statistics line), malformed (an engine marker that failed to parse; drives format_drift).
# TYPE specwatch_lines_total counter
specwatch_lines_total{result="ignored"} 3
specwatch_lines_total{result="malformed"} 1
specwatch_lines_total{result="matched"} 6
# HELP specwatch_journal_lag_seconds How far ingestion is behind the journal: 0 while the reader is at the tail, else now minus the timestamp of the latest entry applied. Absent for files and stdin.
# TYPE specwatch_journal_lag_seconds gauge
specwatch_journal_lag_seconds 1.5
# HELP specwatch_series_dropped_total Samples dropped because the model's series cap was reached, plus step observations dropped by the exporter's own series cap.
# TYPE specwatch_series_dropped_total counter
specwatch_series_dropped_total 5
# HELP specwatch_build_info Always 1; the labels name the build of specwatch that exports these metrics.
# TYPE specwatch_build_info gauge
specwatch_build_info{goversion="GOVERSION",revision="abc",version="1.2.3"} 1
`
	err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(strings.Replace(want, "GOVERSION", goVersion(), 1)),
		"specwatch_commit_length_tokens", "specwatch_step_seconds", "specwatch_model_forecast_tokens_per_second",
		"specwatch_throughput_attribution_log_ratio", "specwatch_last_sample_timestamp_seconds",
		"specwatch_lines_total", "specwatch_journal_lag_seconds", "specwatch_series_dropped_total", "specwatch_build_info")
	if err != nil {
		t.Error(err)
	}
}

// TestCollectorPerSeriesSets checks which metrics each series has: everything for the warm
// SGLang rank, only what was observed for vLLM (no forecast: its context is a percentage),
// only the counters and anomaly flags for the generic series, and every anomaly kind for all.
func TestCollectorPerSeriesSets(t *testing.T) {
	m := exportertest.NewMetrics(t, exportertest.ThreeSeries())
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	has := map[string]map[string]int{} // host → metric name → count
	kinds := map[string]map[string]bool{}
	for _, mf := range mfs {
		for _, mt := range mf.Metric {
			var host, kind string
			for _, l := range mt.Label {
				switch l.GetName() {
				case "host":
					host = l.GetValue()
				case "kind":
					kind = l.GetValue()
				}
			}
			if host == "" {
				continue
			}
			if has[host] == nil {
				has[host], kinds[host] = map[string]int{}, map[string]bool{}
			}
			has[host][mf.GetName()]++
			if mf.GetName() == "specwatch_anomaly_active" {
				kinds[host][kind] = true
			}
		}
	}
	nk := int(model.NumAnomalyKinds) // every kind is always exported
	nr := model.NumReadiness         // and every warm-up detector's readiness
	want := map[string]map[string]int{
		"gpu07": {"specwatch_commit_length_tokens": 1, "specwatch_accept_ratio": 1, "specwatch_accepted_depth_tokens": 1,
			"specwatch_context_tokens": 1, "specwatch_running_requests": 1, "specwatch_step_seconds": 1,
			"specwatch_generation_tokens_per_second": 1, "specwatch_model_step_fixed_seconds": 1,
			"specwatch_model_step_seconds_per_context_token": 1, "specwatch_model_tokens_per_second": 1,
			"specwatch_model_forecast_tokens_per_second": 2, "specwatch_throughput_attribution_log_ratio": 3,
			"specwatch_anomaly_active": nk, "specwatch_anomalies_total": nk, "specwatch_samples_total": 4,
			"specwatch_last_sample_timestamp_seconds": 1, "specwatch_detector_armed": nr, "specwatch_detector_warmup_samples": nr},
		"gpu08": {"specwatch_commit_length_tokens": 1, "specwatch_kv_cache_usage_ratio": 1, "specwatch_anomaly_active": nk,
			"specwatch_anomalies_total": nk, "specwatch_samples_total": 4, "specwatch_last_sample_timestamp_seconds": 1,
			"specwatch_detector_armed": nr, "specwatch_detector_warmup_samples": nr},
		"gpu09": {"specwatch_anomaly_active": nk, "specwatch_anomalies_total": nk, "specwatch_samples_total": 4,
			"specwatch_detector_armed": nr, "specwatch_detector_warmup_samples": nr},
	}
	for host, w := range want {
		if len(has[host]) != len(w) {
			t.Errorf("%s: metrics %v, want %v", host, has[host], w)
			continue
		}
		for name, n := range w {
			if has[host][name] != n {
				t.Errorf("%s: %d × %s, want %d", host, has[host][name], name, n)
			}
		}
		for k := range model.NumAnomalyKinds {
			if !kinds[host][k.String()] {
				t.Errorf("%s: specwatch_anomaly_active{kind=%q} missing", host, k)
			}
		}
	}
}

func TestCollectorInvalidUTF8AndMaxSeries(t *testing.T) {
	src := exportertest.ThreeSeries()
	src.Snaps[0].Labels.Host = "gpu\xff07"
	m, err := exporter.NewMetrics(exporter.MetricsOptions{Source: src, MaxSeries: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Registry().Gather(); err != nil {
		t.Fatalf("invalid UTF-8 in a label must not fail the scrape: %v", err)
	}
	if n, want := testutil.CollectAndCount(m.Registry(), "specwatch_anomaly_active"), 2*int(model.NumAnomalyKinds); n != want {
		t.Errorf("MaxSeries 2: %d anomaly_active series, want %d", n, want)
	}
	m.ObserveStep(0, src.Snaps[0].Labels, 0.05)
	m.ObserveStep(2, src.Snaps[2].Labels, 0.05) // ID 2 ≥ MaxSeries
	if got := gatherValue(t, m.Registry(), "specwatch_series_dropped_total", nil); got != 5 {
		t.Errorf("series_dropped_total = %v, want 4 overflow + 1 step", got)
	}
}

// TestPedanticRegistry registers the collector with a pedantic registry, which checks every
// collected metric against the described descriptors and label names.
func TestPedanticRegistry(t *testing.T) {
	src := exportertest.ThreeSeries()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(exporter.NewCollector(src, 256))
	if _, err := reg.Gather(); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentScrapes gathers from several goroutines while the pipeline applies the demo
// data: run under -race, it checks the snapshot buffer, the label-pair cache and the step
// histogram against each other.
func TestConcurrentScrapes(t *testing.T) {
	samples, res := testdemo.Samples(t)
	l := pipeline.NewState(pipeline.StateOptions{})
	m := exportertest.NewMetrics(t, l)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := m.Registry().Gather(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	testdemo.Replay(pipeline.New(l, pipeline.Options{Steps: m}), samples, res)
	close(stop)
	wg.Wait()
	if n := gatherValue(t, m.Registry(), "specwatch_step_duration_seconds", map[string]string{"rank": "DP0 TP0"}); n == 0 {
		t.Error("no step observed for rank DP0 TP0")
	}
}

// TestCollectorNULInLabels: a NUL byte in a label value (a journal field may carry one) is
// exported as U+FFFD, in the per-series metrics and in the step histogram, so that the text
// exposition never carries a raw NUL.
func TestCollectorNULInLabels(t *testing.T) {
	src := exportertest.ThreeSeries()
	src.Snaps[0].Labels.Host = "gpu\x0007"
	src.Snaps[1].Labels.Unit = "vllm\x00.service\x00"
	m, err := exporter.NewMetrics(exporter.MetricsOptions{Source: src, MaxSeries: 256})
	if err != nil {
		t.Fatal(err)
	}
	m.ObserveStep(0, src.Snaps[0].Labels, 0.05)
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	text := b.String()
	if i := strings.IndexByte(text, 0); i >= 0 {
		t.Fatalf("a NUL reaches the exposition: …%q…", text[max(0, i-60):min(len(text), i+20)])
	}
	for _, want := range []string{`host="gpu` + "\uFFFD" + `07"`, `unit="vllm` + "\uFFFD.service\uFFFD" + `"`} {
		if !strings.Contains(text, `specwatch_anomaly_active{`) || !strings.Contains(text, want) {
			t.Errorf("exposition lacks %s", want)
		}
	}
	if n := gatherValue(t, m.Registry(), "specwatch_step_duration_seconds", map[string]string{"host": "gpu\uFFFD07"}); n != 1 {
		t.Errorf("step histogram of the NUL host: %v observations, want 1", n)
	}
}
