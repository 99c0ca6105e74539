package exporter_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/specwatch/specwatch/exporter/exportertest"
	"github.com/specwatch/specwatch/model"
)

// TestVLLMContextIsKVUsage: a vLLM series' context is KV cache usage in percent; it leaves as
// a ratio under its own names, and the token-context names stay absent for it, so that no panel
// or sum puts percent and tokens on one axis.
func TestVLLMContextIsKVUsage(t *testing.T) {
	vl := model.SeriesSnapshot{ID: 0, Labels: model.Labels{Host: "gpu08", Unit: "vllm.service", Engine: "vllm", Rank: "Engine 003"},
		Context: 41.5, HasContext: true, KVContext: true, FitA: 0.02, FitB: 0.0004, FitOK: true}
	m := exportertest.NewMetrics(t, &exportertest.FakeSource{Snaps: []model.SeriesSnapshot{vl}})
	const lbl = `{attn_cp="",container="",dp="3",engine="vllm",ep="",host="gpu08",namespace="",pod="",pp="",rank="Engine 003",tp="",unit="vllm.service"}`
	want := `
# HELP specwatch_kv_cache_usage_ratio Share of the KV cache in use at the latest decode point, as a ratio (0-1): vLLM's only context figure, in place of specwatch_context_tokens.
# TYPE specwatch_kv_cache_usage_ratio gauge
specwatch_kv_cache_usage_ratio` + lbl + ` 0.415
# HELP specwatch_model_step_kv_cache_slope_seconds Slope of the rolling fit step = a + b*usage for vLLM, whose context is its KV cache usage: seconds a full KV cache (usage 1) adds to a step over an empty one.
# TYPE specwatch_model_step_kv_cache_slope_seconds gauge
specwatch_model_step_kv_cache_slope_seconds` + lbl + ` 0.04
`
	names := []string{"specwatch_kv_cache_usage_ratio", "specwatch_model_step_kv_cache_slope_seconds",
		"specwatch_context_tokens", "specwatch_model_step_seconds_per_context_token"}
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}
