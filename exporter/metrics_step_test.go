package exporter_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/specwatch/specwatch/exporter/exportertest"
)

func goVersion() string { return runtime.Version() }

// gatherValue returns the value of the one metric called name whose labels include want.
func gatherValue(t testing.TB, g prometheus.Gatherer, name string, want map[string]string) float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.Metric {
			for k, v := range want {
				found := false
				for _, l := range m.Label {
					found = found || (l.GetName() == k && l.GetValue() == v)
				}
				if !found {
					continue next
				}
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue()
			case m.Gauge != nil:
				return m.Gauge.GetValue()
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount())
			}
		}
	}
	t.Fatalf("no %s%v", name, want)
	return 0
}

func TestObserveStepClassicAndNative(t *testing.T) {
	m := exportertest.NewMetrics(t, &exportertest.FakeSource{})
	for _, v := range []float64{0.04, 0.04, 0.12, 3, -1} { // -1 is ignored
		m.ObserveStep(0, exportertest.StepLabels, v)
	}
	const want = `
# HELP specwatch_step_duration_seconds Duration of decode steps, one observation per decode point (logged or derived step time).
# TYPE specwatch_step_duration_seconds histogram
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="0.01"} 0
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="0.02"} 0
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="0.03"} 0
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="0.05"} 2
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="0.075"} 2
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="0.1"} 2
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="0.15"} 3
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="0.2"} 3
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="0.3"} 3
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="0.5"} 3
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="0.75"} 3
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="1"} 3
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="2.5"} 3
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="5"} 4
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="10"} 4
specwatch_step_duration_seconds_bucket{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service",le="+Inf"} 4
specwatch_step_duration_seconds_sum{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service"} 3.2
specwatch_step_duration_seconds_count{attn_cp="",container="",dp="",engine="sglang",ep="",host="gpu07",namespace="",pod="",pp="",rank="TP0",tp="0",unit="sglang.service"} 4
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), "specwatch_step_duration_seconds"); err != nil {
		t.Error(err)
	}
	mfs, _ := m.Registry().Gather()
	for _, mf := range mfs {
		if mf.GetName() == "specwatch_step_duration_seconds" {
			h := mf.Metric[0].Histogram
			if h.GetSchema() != 3 || len(h.PositiveSpan) == 0 {
				t.Errorf("native histogram: schema %d, %d spans; want schema 3 (factor 1.1) with buckets", h.GetSchema(), len(h.PositiveSpan))
			}
		}
	}
}

// TestObserveStepRelabel: a new model.Set after a reload reuses IDs for other series; the
// cached child must follow the labels.
func TestObserveStepRelabel(t *testing.T) {
	m := exportertest.NewMetrics(t, &exportertest.FakeSource{})
	other := exportertest.StepLabels
	other.Rank = "TP1"
	m.ObserveStep(0, exportertest.StepLabels, 0.05)
	m.ObserveStep(0, other, 0.05)
	m.ObserveStep(0, other, 0.05)
	if got := gatherValue(t, m.Registry(), "specwatch_step_duration_seconds", map[string]string{"rank": "TP1"}); got != 2 {
		t.Errorf("TP1 count %v, want 2", got)
	}
	if got := gatherValue(t, m.Registry(), "specwatch_step_duration_seconds", map[string]string{"rank": "TP0"}); got != 1 {
		t.Errorf("TP0 count %v, want 1", got)
	}
}

func TestObserveStepDoesNotAllocate(t *testing.T) {
	m := exportertest.NewMetrics(t, &exportertest.FakeSource{})
	steps := []float64{0.031, 0.045, 0.052, 0.08, 0.11}
	for _, v := range steps { // first sight of the series and of each native bucket
		m.ObserveStep(3, exportertest.StepLabels, v)
	}
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		m.ObserveStep(3, exportertest.StepLabels, steps[i%len(steps)])
		i++
	})
	if allocs != 0 {
		t.Errorf("ObserveStep allocates %v times per call on the hot path", allocs)
	}
}

func BenchmarkObserveStep(b *testing.B) {
	m := exportertest.NewMetrics(b, &exportertest.FakeSource{})
	m.ObserveStep(0, exportertest.StepLabels, 0.05)
	b.ReportAllocs()
	v := 0.03
	for b.Loop() {
		m.ObserveStep(0, exportertest.StepLabels, v)
		if v += 0.0001; v > 0.2 {
			v = 0.03
		}
	}
}
