package exporter

import (
	"github.com/prometheus/client_golang/prometheus"
)

// seriesLabels are docs/metrics.md's labels of every per-series metric, in this order. The
// container triple and the parallel dimensions (rank.Split) are always present, empty
// where the source names no container or the engine prints no such rank: one label set per
// family keeps every query and recording rule the same for every kind of deployment.
var seriesLabels = []string{"host", "unit", "engine", "rank", "dp", "tp", "pp", "ep", "attn_cp", "container", "namespace", "pod"}

// descs are the descriptors of everything the collector emits. Names, labels and types are
// public interface (docs/metrics.md): dashboards and alert rules use them.
type descs struct {
	commit, acceptRate, depth, context, kvUsage, running *prometheus.Desc
	step, tps, fitA, fitB, fitKV, predTPS                *prometheus.Desc
	forecast, attribution                                *prometheus.Desc
	acceptByPos                                          *prometheus.Desc
	anomalyActive, lastSample, samples, anomalies        *prometheus.Desc
	committedTokens, verifySteps                         *prometheus.Desc
	detectorArmed, detectorWarmup                        *prometheus.Desc
	clockOffset                                          *prometheus.Desc
	journalLag, lines, dropped, cursorFailures           *prometheus.Desc
}

func newDescs() *descs {
	per := func(name, help string, extra ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, append(append([]string(nil), seriesLabels...), extra...), nil)
	}
	return &descs{
		commit: per("specwatch_commit_length_tokens",
			"Tokens committed per verify step (SGLang accept len, vLLM mean acceptance length, avg_commit_len), latest sample."),
		acceptRate: per("specwatch_accept_ratio",
			"Draft acceptance rate as the engine logs it, as a ratio (0-1), latest sample."),
		acceptByPos: per("specwatch_position_accept_ratio",
			"Share of verify steps whose draft token at this position (label position, 1 = the first draft token) was accepted, as a ratio (0-1): the engine's per-position acceptance, weighted by draft tokens over the long acceptance half-life. Only for engines that state it (vLLM, llama.cpp).",
			"position"),
		depth: per("specwatch_accepted_depth_tokens",
			"Mean accepted draft depth (avg_accepted_depth), latest sample."),
		context: per("specwatch_context_tokens",
			"Context of the latest decode point: tokens held in the KV cache (SGLang #token, llama.cpp n_past). Absent for vLLM, which logs only its KV cache usage (specwatch_kv_cache_usage_ratio)."),
		kvUsage: per("specwatch_kv_cache_usage_ratio",
			"Share of the KV cache in use at the latest decode point, as a ratio (0-1): vLLM's only context figure, in place of specwatch_context_tokens."),
		running: per("specwatch_running_requests",
			"Requests in the decode batch at the latest decode point."),
		step: per("specwatch_step_seconds",
			"Duration of one decode step at the latest decode point, as logged or derived as commit length x running requests / generation tok/s."),
		tps: per("specwatch_generation_tokens_per_second",
			"Decode throughput of the whole batch at the latest decode point, as logged or derived from the step time."),
		fitA: per("specwatch_model_step_fixed_seconds",
			"Intercept a of the rolling fit step = a + b*context: the step time at zero context."),
		fitB: per("specwatch_model_step_seconds_per_context_token",
			"Slope b of the rolling fit step = a + b*context: seconds added to a step per context token. Absent for vLLM (specwatch_model_step_kv_cache_slope_seconds)."),
		fitKV: per("specwatch_model_step_kv_cache_slope_seconds",
			"Slope of the rolling fit step = a + b*usage for vLLM, whose context is its KV cache usage: seconds a full KV cache (usage 1) adds to a step over an empty one."),
		predTPS: per("specwatch_model_tokens_per_second",
			"Batch throughput the fitted step model predicts at the current context, commit length and running requests."),
		forecast: per("specwatch_model_forecast_tokens_per_second",
			"Forecast tok/s of one request at a reference context (label context, in tokens) with the current acceptance. Not exported for vLLM series, whose context is a KV percentage.",
			"context"),
		attribution: per("specwatch_throughput_attribution_log_ratio",
			"Attribution of ln(current/baseline per-request tok/s) to acceptance, context and residual (slower than the step model explains); the three factors add up to the log ratio.",
			"factor"),
		anomalyActive: per("specwatch_anomaly_active",
			"1 while an anomaly episode of this kind is open on the series, else 0; every kind of the fixed vocabulary is always exported.",
			"kind"),
		detectorArmed: per("specwatch_detector_armed",
			"1 once the detector (label detector: acceptance_drop, step_time_regression, throughput_collapse) has learned its baseline and judges the series, 0 while it warms up: a change it would catch is not judged yet.",
			"detector"),
		detectorWarmup: per("specwatch_detector_warmup_samples",
			"Samples the detector (label detector) still needs at least before it is armed; 0 once armed.",
			"detector"),
		lastSample: per("specwatch_last_sample_timestamp_seconds",
			"Unix time of the series' latest sample, from the log's timestamps (not the exporter's clock)."),
		clockOffset: per("specwatch_log_clock_offset_seconds",
			"How far the series' log timestamps run ahead of the daemon's clock, negative behind (live only): the largest log timestamp minus arrival over the last minute or two of arrivals. Expiry and stale detection use the arrival, not the timestamp."),
		samples: per("specwatch_samples_total",
			"Samples applied to the series, by line kind (decode, spec, prefill, event).",
			"kind"),
		committedTokens: per("specwatch_committed_tokens_total",
			"Tokens committed in the verify steps counted in specwatch_verify_steps_total: rate(specwatch_committed_tokens_total) / rate(specwatch_verify_steps_total) is the mean commit length over the range."),
		verifySteps: per("specwatch_verify_steps_total",
			"Verify steps (drafts, per request) behind the commit lengths whose steps the engine states (vLLM, llama.cpp requests, TensorRT-LLM iteration stats; SGLang's decode line as its interval x running requests)."),
		anomalies: per("specwatch_anomalies_total",
			"Anomaly episodes raised on the series, by kind.",
			"kind"),
		journalLag: prometheus.NewDesc("specwatch_journal_lag_seconds",
			"How far ingestion is behind the journal: 0 while the reader is at the tail, else now minus the timestamp of the latest entry applied. Absent for files and stdin.",
			nil, nil),
		lines: prometheus.NewDesc("specwatch_lines_total",
			"Input lines by parse result: matched (a sample), ignored (not an engine statistics line), malformed (an engine marker that failed to parse; drives format_drift).",
			[]string{"result"}, nil),
		dropped: prometheus.NewDesc("specwatch_series_dropped_total",
			"Samples dropped because the model's series cap was reached, plus step observations dropped by the exporter's own series cap.",
			nil, nil),
		cursorFailures: prometheus.NewDesc("specwatch_cursor_save_failures_total",
			"Failed writes of the journal cursor; until one succeeds, a restart re-reads entries already applied.",
			nil, nil),
	}
}

func (d *descs) describe(ch chan<- *prometheus.Desc) {
	for _, x := range []*prometheus.Desc{d.commit, d.acceptRate, d.depth, d.context, d.kvUsage, d.running, d.step, d.tps, d.fitKV,
		d.fitA, d.fitB, d.predTPS, d.forecast, d.attribution, d.anomalyActive, d.detectorArmed, d.detectorWarmup, d.lastSample, d.clockOffset, d.samples,
		d.committedTokens, d.verifySteps, d.anomalies, d.journalLag, d.lines, d.dropped, d.cursorFailures} {
		ch <- x
	}
}
