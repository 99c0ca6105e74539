package report

import (
	"flag"
	"math"
	"time"

	"github.com/specwatch/specwatch/model"
)

// updateFiles reports -update (go test ./report -update), which rewrites the golden page and
// the screenshots. Another test file of this package may register the same flag, so it is
// looked up rather than assumed ours.
var updateFiles = func() func() bool {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files and screenshots in testdata")
	}
	return func() bool { f := flag.Lookup("update"); return f != nil && f.Value.String() == "true" }
}()

var t0 = time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func ptr[T any](v T) *T { return &v }

// synth is a small deterministic report: an SGLang series with a fit, an ended and an active
// anomaly, after-idle points (one on scale, one far above) and attribution; a vLLM series in
// KV percent with a batch term; and a series with no data at all. Its counts are known, so
// tests can assert exactly what is drawn.
func synth() (model.Report, []model.SeriesPlot) {
	sg := model.Labels{Host: "gpu01", Unit: "sglang.service", Engine: "sglang", Rank: "TP0"}
	vl := model.Labels{Host: "gpu02", Unit: "vllm.service", Engine: "vllm", Rank: "Engine 000"}
	empty := model.Labels{Host: "gpu03", Unit: "llama.service", Engine: "llamacpp"}
	stuck := model.AnomalyJSON{Kind: "commit_len_stuck", Severity: "critical", Start: at(2 * time.Minute),
		End: ptr(at(3 * time.Minute)), Detail: "commit length 1.00 for 3 consecutive samples"}
	drop := model.AnomalyJSON{Kind: "acceptance_drop", Severity: "warning", Start: at(5 * time.Minute),
		Detail: "commit length 3.1 against a baseline of 4.2"}

	var sgPts []model.HistoryPoint
	for i := range 40 {
		ctx := 1000 + 100*float64(i)
		step := 0.03 + 2e-5*ctx
		commit := 3 + float64(i%3)*0.5
		p := model.HistoryPoint{T: at(time.Duration(i) * 10 * time.Second).UnixNano(), Ctx: float32(ctx),
			Step: float32(step), Commit: float32(commit), TPS: float32(commit / step), Pred: float32(math.NaN())}
		if i >= 5 {
			p.Pred, p.PredStep = float32(1.02*commit/step), float32(step)
		}
		switch i {
		case 10: // after idle, on scale: a hollow marker
			p.Idle, p.Step, p.TPS = true, 0.05, 0.5
		case 25: // after idle, 5 s: far above the plot, only counted
			p.Idle, p.Step, p.TPS = true, 5, 0.5
		}
		sgPts = append(sgPts, p)
	}
	var vlPts []model.HistoryPoint
	for i := range 12 {
		kv := 2 + 5*float64(i)
		step := 0.018 + 0.0023*kv
		vlPts = append(vlPts, model.HistoryPoint{T: at(time.Duration(i) * 30 * time.Second).UnixNano(), Ctx: float32(kv),
			Step: float32(step), Commit: 2.7, TPS: float32(2.7 * 4 / step), Pred: float32(2.7 * 4 / step)})
	}
	r := model.Report{
		Input: model.InputCounts{Lines: 1234, Samples: 1000, Ignored: 230, Malformed: 4, Unreadable: 1},
		Series: []model.SeriesReport{{
			Labels: sg, Samples: 40, First: at(0), Last: at(390 * time.Second), ContextUnit: "tokens",
			StepModel: &model.StepModel{FixedMS: 30, MSPer1kToken: 20, R2: 0.99, N: 36, RefFixedMS: 29.8, RefMSPer1kToken: 20.1},
			CommitLen: &model.CommitStats{Mean: 3.5, P10: 3, P50: 3.5, P90: 4, Last: 4},
			TPS:       &model.TPSStats{MeasuredMean: 48.2, PredictedMean: 49.1, MAPE: 0.021},
			Forecast:  []model.Forecast{{Context: 4096, StepMS: 111.9, TPS: 31.3}, {Context: 131072, StepMS: 2651, TPS: 1.3}},
			Attribution: &model.AttributionJSON{
				Baseline: model.WindowJSON{Start: at(0), End: at(90 * time.Second), TPS: 80, Context: 1450, CommitLen: 4, StepMS: 59, Running: 1},
				Current:  model.WindowJSON{Start: at(300 * time.Second), End: at(390 * time.Second), TPS: 40, Context: 4450, CommitLen: 3.5, StepMS: 119, Running: 1},
				LogRatio: -0.6931, Acceptance: -0.1335, Context: -0.6931 + 0.1335 + 0.01, Residual: -0.01, Total: -0.6931,
			},
			Anomalies: []model.AnomalyJSON{stuck, drop}, Verdict: "anomalous",
			Explanation: "commit_len_stuck since 03:02:00 (ended 03:03:00). Throughput fell from 80 to 40 tok/s.",
		}, {
			Labels: vl, Samples: 12, First: at(0), Last: at(330 * time.Second), ContextUnit: "kv_percent",
			StepModel: &model.StepModel{FixedMS: 18, MSPerKVPercent: 2.3, R2: 1, N: 12},
			CommitLen: &model.CommitStats{Mean: 2.7, P10: 2.7, P50: 2.7, P90: 2.7, Last: 2.7},
			TPS:       &model.TPSStats{MeasuredMean: 250, PredictedMean: 250},
			Attribution: &model.AttributionJSON{
				Baseline: model.WindowJSON{TPS: 371, Context: 1.9, CommitLen: 2.62, StepMS: 22.6, Running: 3.2},
				Current:  model.WindowJSON{TPS: 219, Context: 0.9, CommitLen: 2.77, StepMS: 20.2, Running: 1.6},
				LogRatio: 0.166, Acceptance: 0.056, Context: 0.11, Residual: 0, Batch: -0.693, Total: -0.527,
			},
			Anomalies: []model.AnomalyJSON{}, Verdict: "expected",
			Explanation: "Fewer requests ran (3.2 → 1.6); per request, throughput changed +18 %: nothing slowed down.",
		}, {
			Labels: empty, Anomalies: []model.AnomalyJSON{},
		}},
	}
	plots := []model.SeriesPlot{
		// Not in report order: plots are matched by labels.
		{Labels: empty, ContextUnit: "tokens"},
		{Labels: vl, ContextUnit: "kv_percent", FitA: 0.018, FitB: 0.0023, FitOK: true, Points: vlPts},
		{Labels: sg, ContextUnit: "tokens", FitA: 0.03, FitB: 2e-5, FitOK: true, Points: sgPts,
			Anomalies: []model.AnomalyJSON{stuck, drop}},
	}
	return r, plots
}

var synthOpts = PageOptions{Title: "specwatch — synthetic", Now: time.Date(2026, 1, 2, 4, 0, 0, 0, time.UTC), Version: "v0.0.0-test"}
