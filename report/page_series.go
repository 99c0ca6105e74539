package report

import (
	"cmp"
	"html/template"
	"slices"
	"strconv"
	"time"

	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/report/numfmt"
	"github.com/specwatch/specwatch/report/svgplot"
)

// seriesView is one series' card.
type seriesView struct {
	Anchor, Name, Engine, Verdict, VerdictText, Span, Explanation string
	Labels                                                        []labelKV
	Figures                                                       []tile
	Forecast                                                      []forecastRow
	Anomalies                                                     []anomalyRow
	AnomalyCount, AnomaliesMore                                   int
	Scatter, Attr, Commit, TPS, PerPos                            plotView
	AttrRows                                                      []attrRow
	// Sources says which input gave which figure (logs, /metrics); Events lists restarts;
	// Readiness which detectors still learn their baseline.
	Sources, Readiness string
	Events             []string
}

type labelKV struct{ K, V string }

// plotView is one figure: the SVG and its legend, or the reason there is no plot yet.
type plotView struct {
	Title, Empty string
	SVG          template.HTML
	Legend       []legendItem
}

type legendItem struct{ Class, Text string }

type forecastRow struct{ Context, StepMS, TPS string }

type attrRow struct{ Name, Baseline, Current, Change string }

// verdicts are the values docs/report.md defines; anything else is shown as given, but styled
// neutrally (the class never comes from input).
var verdicts = map[string]bool{"healthy": true, "expected": true, "unjudged": true, "degraded": true, "anomalous": true}

const noData = "Not enough data yet: no decode samples recorded for this series."

// buildSeries is a series' card without its plots, which addPlots draws as the card is written.
func buildSeries(sr *model.SeriesReport, anchor string) seriesView {
	kv := svgplot.KVUnit(sr.ContextUnit)
	v := seriesView{Anchor: anchor, Name: seriesName(sr.Labels), Engine: sr.Labels.Engine,
		Verdict: "unknown", VerdictText: sr.Verdict, Explanation: sr.Explanation}
	if verdicts[sr.Verdict] {
		v.Verdict = sr.Verdict
	}
	if v.VerdictText == "" {
		v.VerdictText = "no verdict"
	}
	for _, name := range model.LabelNames[1:] {
		if val := sr.Labels.Value(name); val != "" {
			v.Labels = append(v.Labels, labelKV{name, val})
		}
	}
	v.Span = "no samples yet"
	if sr.Samples > 0 {
		v.Span = countOf(sr.Samples, "sample") + " · " + numfmt.Time(sr.First) + " → " + numfmt.Clock(sr.Last, sr.First) +
			" · " + numfmt.Dur(sr.Last.Sub(sr.First))
	}
	v.Figures = figures(sr, kv)
	for _, f := range sr.Forecast {
		v.Forecast = append(v.Forecast, forecastRow{Context: numfmt.CtxShort(f.Context), StepMS: numfmt.Fixed(f.StepMS, 0), TPS: numfmt.TPS(f.TPS)})
	}
	for _, a := range sr.Anomalies {
		v.Anomalies = append(v.Anomalies, anomalyOverview(a, sr, anchor))
	}
	v.Sources, v.Events, v.Readiness = sourcesLine(sr.Sources), eventLines(sr.Events), readinessLine(sr.Readiness)
	v.AnomalyCount = len(v.Anomalies)
	v.Anomalies, v.AnomaliesMore = latest(v.Anomalies)
	return v
}

// addPlots draws a card's four plots: most of the page's bytes, so they are drawn one card at
// a time while the page is written (pageView.Cards), never all held at once.
func addPlots(v *seriesView, sr *model.SeriesReport, p *model.SeriesPlot) {
	kv := svgplot.KVUnit(sr.ContextUnit)
	v.Scatter = plotView{Title: "Step time vs context", Empty: noData}
	v.Commit = plotView{Title: "Commit length over time", Empty: noData}
	v.TPS = plotView{Title: "Decode throughput over time", Empty: noData}
	v.Attr = plotView{Title: "Why throughput changed: best sustained window → latest",
		Empty: "Not enough data yet: attribution needs a baseline and a current window of decode samples with a fitted step model."}
	if a := svgplot.Attribution(sr.Attribution, v.Name); a.SVG != "" {
		v.Attr.SVG = a.SVG
		v.AttrRows = attrRows(sr.Attribution, kv)
	}
	if d := svgplot.PerPosition(sr.PerPosition, v.Name); d.SVG != "" {
		v.PerPos = plotView{Title: "Acceptance per draft position", SVG: d.SVG}
		if sr.PerPosition.Advice != nil {
			v.PerPos.Legend = []legendItem{{"acc", "worth its verify work"}, {"warn", "costs more than it adds"}}
		}
	}
	if p != nil && len(p.Points) > 0 {
		plotSeries(v, p, kv)
	}
	if w := fitWarning(sr.StepModel, kv); w != "" {
		for i := range v.Scatter.Legend {
			if v.Scatter.Legend[i].Class == "fit" {
				v.Scatter.Legend[i].Text += " — " + w
			}
		}
	}
}

// plotSeries fills the three data plots of a card from the series' recorded points. The plots
// assume time order (recency, rolling means, the time axis); a log whose clock stepped back
// could break it, so out-of-order points are sorted on a copy first.
func plotSeries(v *seriesView, p *model.SeriesPlot, kv bool) {
	byTime := func(a, b model.HistoryPoint) int { return cmp.Compare(a.T, b.T) }
	if !slices.IsSortedFunc(p.Points, byTime) {
		sorted := *p
		sorted.Points = slices.Clone(p.Points)
		slices.SortStableFunc(sorted.Points, byTime)
		p = &sorted
	}
	sc := svgplot.Scatter(p, v.Name)
	if sc.SVG != "" {
		v.Scatter.SVG = sc.SVG
		idle := "after idle (not fitted)"
		if sc.IdleOff > 0 {
			idle = "after idle (not fitted; " + strconv.Itoa(sc.IdleOff) + " above the plot)"
		}
		v.Scatter.Legend = []legendItem{{"ramp", "decode samples, older → newer"}, {"idle", idle}}
		if p.FitOK {
			v.Scatter.Legend = append(v.Scatter.Legend, legendItem{"fit", "fit " + stepModelText(1000*p.FitA, fitSlope(p.FitB, kv), kv)})
		}
		v.Scatter.Legend = offScaleLegend(v.Scatter.Legend, sc.OffScale, "off")
	} else {
		v.Scatter.Empty = "Not enough data yet: no decode samples with a step time."
	}
	spanLegend := severityLegend(p.Anomalies)
	commit := svgplot.Trace{Val: func(q *model.HistoryPoint) float64 { return float64(q.Commit) }, Raw: "raw", Smooth: "mean", IncludeDomain: true}
	if c := svgplot.OverTime(p, v.Name, "commit", "commit length (tokens per step)", 190, []svgplot.Trace{commit}, false); c.SVG != "" {
		v.Commit.SVG = c.SVG
		v.Commit.Legend = offScaleLegend(append([]legendItem{{"raw", "per log line"}, {"mean", "rolling mean"}}, spanLegend...), c.OffScale, "raw")
	}
	measured := svgplot.Trace{Val: func(q *model.HistoryPoint) float64 { return float64(q.TPS) }, Raw: "raw", Smooth: "mean",
		ExcludesIdle: true, IncludeDomain: true}
	pred := svgplot.Trace{Val: func(q *model.HistoryPoint) float64 { return float64(q.Pred) }, Smooth: "pred", ExcludesIdle: true,
		IncludeDomain: true}
	if t := svgplot.OverTime(p, v.Name, "tps", "decode throughput (tok/s)", 220, []svgplot.Trace{measured, pred}, true); t.SVG != "" {
		v.TPS.SVG = t.SVG
		v.TPS.Legend = append([]legendItem{{"raw", "measured per log line"}, {"mean", "measured, rolling mean"},
			{"pred", "predicted by the step model, rolling mean"}, {"idle", "after idle (artefact)"}}, spanLegend...)
		v.TPS.Legend = offScaleLegend(v.TPS.Legend, t.OffScale, "raw")
	}
}

// offScaleLegend says how many points are drawn on the top edge rather than where they are,
// so that a clipped axis never hides an outlier; class is the marker they are drawn with.
func offScaleLegend(l []legendItem, n int, class string) []legendItem {
	if n == 0 {
		return l
	}
	return append(l, legendItem{class, strconv.Itoa(n) + " above the axis, drawn on its top edge"})
}

// severityLegend names the span colours the plot actually uses, most severe first.
func severityLegend(as []model.AnomalyJSON) []legendItem {
	var out []legendItem
	for _, sev := range []string{"critical", "warning", "info"} {
		for _, a := range as {
			if svgplot.SeverityClass(a.Severity) == sev {
				out = append(out, legendItem{"sp-" + sev, sev + " anomaly"})
				break
			}
		}
	}
	return out
}

// fitSlope converts the fit's b (seconds per context unit) to ms per 1k tokens or per 1 % KV.
func fitSlope(b float64, kv bool) float64 {
	if kv {
		return 1000 * b
	}
	return 1e6 * b
}

// stepModelText is "33.5 ms + 19.86 ms per 1k tokens", or per 1 % KV cache for vLLM.
func stepModelText(aMS, bMS float64, kv bool) string {
	if kv {
		return numfmt.Fixed(aMS, 1) + " ms + " + numfmt.Fixed(bMS, 3) + " ms per 1 % KV cache"
	}
	return numfmt.Fixed(aMS, 1) + " ms + " + numfmt.Fixed(bMS, 2) + " ms per 1k tokens"
}

// figures are the key numbers of a series, each "—" with a reason until there is data.
func figures(sr *model.SeriesReport, kv bool) []tile {
	out := make([]tile, 0, 3)
	t := tile{Label: "tok/s, measured mean", Value: numfmt.Dash, Sub: "not enough data yet"}
	if s := sr.TPS; s != nil {
		t.Value, t.Sub = numfmt.TPS(s.MeasuredMean), "no prediction yet"
		if s.PredictedMean > 0 {
			t.Sub = "predicted " + numfmt.TPS(s.PredictedMean) + " · mean abs error " + numfmt.Fixed(100*s.MAPE, 1) + "\u00a0%"
		}
	}
	out = append(out, t)
	t = tile{Label: "commit length, mean", Value: numfmt.Dash, Sub: "not enough data yet"}
	if c := sr.CommitLen; c != nil {
		t.Value = numfmt.Fixed(c.Mean, 2)
		t.Sub = "p10 " + numfmt.Fixed(c.P10, 2) + " · p50 " + numfmt.Fixed(c.P50, 2) + " · p90 " + numfmt.Fixed(c.P90, 2) + " · last " + numfmt.Fixed(c.Last, 2)
		if pooledDiffers(c) {
			t.Label = "commit length, mean per request"
			t.Sub = numfmt.Fixed(c.PooledMean, 2) + " per verify step · " + t.Sub
		}
	}
	out = append(out, t)
	t = tile{Label: "step model, a + b · context", Value: numfmt.Dash, Sub: "not enough data yet"}
	if m := sr.StepModel; m != nil {
		b, ref := m.MSPer1kToken, m.RefMSPer1kToken
		if kv {
			b, ref = m.MSPerKVPercent, m.RefMSPerKVPercent
		}
		per := "per 1k tokens"
		t.Value = numfmt.Fixed(m.FixedMS, 1) + " ms + " + numfmt.Fixed(b, 2) + " ms"
		if kv {
			per = "per 1 % KV cache"
			t.Value = numfmt.Fixed(m.FixedMS, 1) + " ms + " + numfmt.Fixed(b, 3) + " ms"
		}
		t.Sub = "b " + per + " · R² " + numfmt.Fixed(m.R2, 2) + " · " + countOf(int64(m.N), "sample")
		if m.MSPerDraftToken != 0 {
			t.Label = "step model, a + b · context + c · draft tokens"
			t.Sub = "c " + numfmt.Fixed(m.MSPerDraftToken, 2) + " ms per draft token · " + t.Sub
		}
		if m.RefFixedMS != 0 || ref != 0 {
			t.Sub += " · robust reference " + numfmt.Fixed(m.RefFixedMS, 1) + " + " + numfmt.Fixed(ref, 2)
		}
		if w := fitWarning(m, kv); w != "" {
			t.Sub, t.Class = w+" · "+t.Sub, "bad"
		}
	}
	return append(out, t)
}

// attrRows compare the baseline and current windows of an attribution.
func attrRows(a *model.AttributionJSON, kv bool) []attrRow {
	b, c := a.Baseline, a.Current
	ratio := func(x, y float64) string {
		if !(x > 0) || !numfmt.Finite(y/x) {
			return numfmt.Dash
		}
		return "×" + numfmt.Fixed(y/x, 2)
	}
	// Clock times, with dates only when the windows are on different days.
	dates := b.Start.UTC().Format(time.DateOnly) != c.End.UTC().Format(time.DateOnly)
	return []attrRow{
		{"window", windowText(b, dates), windowText(c, dates), ""},
		{"tok/s", numfmt.TPS(b.TPS), numfmt.TPS(c.TPS), ratio(b.TPS, c.TPS)},
		{"context", numfmt.Ctx(b.Context, kv), numfmt.Ctx(c.Context, kv), ratio(b.Context, c.Context)},
		{"commit length", numfmt.Fixed(b.CommitLen, 2), numfmt.Fixed(c.CommitLen, 2), ratio(b.CommitLen, c.CommitLen)},
		{"step", numfmt.Fixed(b.StepMS, 1) + " ms", numfmt.Fixed(c.StepMS, 1) + " ms", ratio(b.StepMS, c.StepMS)},
		{"running requests", numfmt.Fixed(b.Running, 1), numfmt.Fixed(c.Running, 1), ratio(b.Running, c.Running)},
	}
}

// windowText is "10:05:18 → 10:10:42", or "Nov 20 17:40 → 17:42" when dates matter (a window
// of minutes, so minutes are precise enough there).
func windowText(w model.WindowJSON, dates bool) string {
	a, b := w.Start.UTC(), w.End.UTC()
	if !dates {
		return a.Format(time.TimeOnly) + " → " + b.Format(time.TimeOnly)
	}
	if a.YearDay() == b.YearDay() && a.Year() == b.Year() {
		return a.Format("Jan 2 15:04") + " → " + b.Format("15:04")
	}
	return a.Format("Jan 2 15:04") + " → " + b.Format("Jan 2 15:04")
}
