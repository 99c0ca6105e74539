package report

import (
	"io"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/specwatch/specwatch/model"
)

// bigReport is the status page at its fullest: n series of 2048 points (the history's
// capacity), a day each, with a fit, an anomaly and attribution.
func bigReport(n int) (model.Report, []model.SeriesPlot) {
	base, plots := synth()
	r := model.Report{Input: base.Input}
	for s := range n {
		sr := base.Series[0]
		sr.Labels.Rank = "TP" + strconv.Itoa(s)
		p := model.SeriesPlot{Labels: sr.Labels, ContextUnit: "tokens", FitA: 0.03, FitB: 2e-5, FitOK: true,
			Anomalies: plots[2].Anomalies}
		for i := range 2048 {
			ctx := 1000 + 20000*(0.5+0.5*math.Sin(float64(i)/37))
			step := 0.03 + 2e-5*ctx*(1+0.05*math.Sin(float64(i*7)))
			commit := 3 + math.Mod(float64(i)*0.37, 2)
			p.Points = append(p.Points, model.HistoryPoint{T: at(time.Duration(i) * 42 * time.Second).UnixNano(),
				Ctx: float32(ctx), Step: float32(step), Commit: float32(commit), TPS: float32(commit / step),
				Pred: float32(commit / (0.03 + 2e-5*ctx)), Idle: i%50 == 0})
		}
		r.Series = append(r.Series, sr)
		plots = append(plots, p)
	}
	return r, plots
}

func BenchmarkWritePage(b *testing.B) {
	r, plots := bigReport(10)
	b.ReportAllocs()
	for b.Loop() {
		if err := WritePage(io.Discard, r, plots, synthOpts); err != nil {
			b.Fatal(err)
		}
	}
}
