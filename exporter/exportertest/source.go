// Package exportertest holds the fixtures the tests of exporter and of its consumers (web)
// share: a fake Source with fixed series, the metrics over it, and the demo data replayed into
// a pipeline.State through the pipeline.
package exportertest

import (
	"sync"
	"testing"
	"time"

	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
)

// FakeSource serves fixed snapshots, and a report of one healthy series per snapshot. Tests set
// Snaps and State before the source is read, and change State with SetStatus afterwards.
type FakeSource struct {
	mu    sync.Mutex
	Snaps []model.SeriesSnapshot
	State pipeline.Status
}

func (f *FakeSource) Snapshot(dst []model.SeriesSnapshot) []model.SeriesSnapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append(dst[:0], f.Snaps...)
}

func (f *FakeSource) Report() model.Report {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := model.Report{Input: f.State.Input}
	for _, s := range f.Snaps {
		r.Series = append(r.Series, model.SeriesReport{Labels: s.Labels, Verdict: "healthy", Anomalies: []model.AnomalyJSON{}})
	}
	return r
}

func (f *FakeSource) Status() pipeline.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.State
}

// SetStatus changes State while readers may be running.
func (f *FakeSource) SetStatus(change func(*pipeline.Status)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(&f.State)
}

// ThreeSeries: a warm SGLang rank with every figure, a vLLM rank with a few, and a generic
// series that has only been seen.
func ThreeSeries() *FakeSource {
	sg := model.SeriesSnapshot{ID: 0, Labels: model.Labels{Host: "gpu07", Unit: "sglang.service", Engine: "sglang", Rank: "TP0"},
		LastSample: 1_795_000_000_500_000_000,
		Commit:     2.5, AcceptRate: 0.6, AcceptedDepth: 1.5, Context: 8192, Running: 12, Step: 0.04, TPS: 750,
		HasCommit: true, HasAcceptRate: true, HasDepth: true, HasContext: true, HasRunning: true, HasStep: true,
		FitA: 0.03, FitB: 2e-6, PredTPS: 740, FitOK: true, HasPred: true,
		NForecast: 2, AttrAcceptance: -0.1, AttrContext: -0.2, AttrResidual: 0.05, AttrOK: true,
	}
	sg.Forecast[0] = model.Forecast{Context: 4096, StepMS: 38, TPS: 65.8}
	sg.Forecast[1] = model.Forecast{Context: 131072, StepMS: 292, TPS: 8.5}
	sg.Active[model.CommitLenStuck] = true
	sg.Raised[model.CommitLenStuck] = 2
	sg.Samples = [5]int64{0, 100, 3, 0, 1}
	vl := model.SeriesSnapshot{ID: 1, Labels: model.Labels{Host: "gpu08", Unit: "vllm.service", Engine: "vllm", Rank: "Engine 000"},
		LastSample: 1_795_000_001_000_000_000, Commit: 3.1, HasCommit: true, Context: 41.5, HasContext: true, KVContext: true}
	gen := model.SeriesSnapshot{ID: 2, Labels: model.Labels{Host: "gpu09", Unit: "fork", Engine: "generic", Rank: ""}}
	return &FakeSource{Snaps: []model.SeriesSnapshot{sg, vl, gen}, State: pipeline.Status{
		Input:    model.InputCounts{Lines: 10, Samples: 6, Ignored: 3, Malformed: 1},
		Overflow: 4, HasJournalLag: true, JournalLag: 1500 * time.Millisecond, CaughtUp: true,
	}}
}

// StepLabels label the series the step-histogram tests observe.
var StepLabels = model.Labels{Host: "gpu07", Unit: "sglang.service", Engine: "sglang", Rank: "TP0"}

// NewMetrics is exporter.NewMetrics over src with a fixed version and revision.
func NewMetrics(tb testing.TB, src exporter.Source) *exporter.Metrics {
	tb.Helper()
	m, err := exporter.NewMetrics(exporter.MetricsOptions{Source: src, Version: "1.2.3", Revision: "abc"})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}
