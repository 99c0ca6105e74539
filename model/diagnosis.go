package model

import (
	"math"
	"strings"
	"time"

	"github.com/specwatch/specwatch/model/internal/explain"
	"github.com/specwatch/specwatch/model/internal/window"
)

// fitA and fitBPer are the fit in the units people read: seconds, and seconds per 1k tokens
// (or per 1 % of KV cache for vLLM).
func (se *Series) fitA() float64 { a, _ := se.fit.Coef(); return a }
func (se *Series) fitBPer() float64 {
	_, b := se.fit.Coef()
	if se.kvContext {
		return b
	}
	return b * 1000
}
func (se *Series) perUnit() string {
	if se.kvContext {
		return "1 % KV"
	}
	return "1k tokens"
}

func (se *Series) report() SeriesReport {
	r := SeriesReport{
		Labels:    se.labels,
		Samples:   se.samples,
		First:     time.Unix(0, se.first).UTC(),
		Last:      time.Unix(0, se.last).UTC(),
		Anomalies: make([]AnomalyJSON, 0, len(se.anomalies)),
	}
	r.ContextUnit = "tokens"
	if se.kvContext {
		r.ContextUnit = "kv_percent"
	}
	if se.commitQ.Count() > 0 {
		r.CommitLen = &CommitStats{
			Mean: round(se.commitQ.Mean(), 3),
			P10:  round(se.commitQ.Quantile(0.10), 3),
			P50:  round(se.commitQ.Quantile(0.50), 3),
			P90:  round(se.commitQ.Quantile(0.90), 3),
			Last: round(se.cur.commit, 3),
		}
		if se.pooledSteps > 0 {
			r.CommitLen.PooledMean = round(se.pooledTok/se.pooledSteps, 3)
		}
	}
	if se.fit.N() >= se.warmup() {
		// the model that predicts is the one reported: the width fit where it is in use
		a, b := se.fit.Coef()
		r2, n := se.fit.R2(), se.fit.N()
		wf, width := se.widthFit()
		width = width && !se.kvContext
		if width {
			a, b, r2, n = wf.A, wf.B, wf.R2, se.width.N()
		}
		m := &StepModel{FixedMS: round(a*1000, 3), R2: round(r2, 4), N: n}
		if width {
			m.MSPerDraftToken = round(wf.C*1000, 4)
			m.MSPerDraftTokenPer1kT = round(wf.D*1e6, 4)
		}
		if ra, rb, ok := se.ref.Fit(); ok {
			m.RefFixedMS = round(ra*1000, 3)
			if se.kvContext {
				m.RefMSPerKVPercent = round(rb*1000, 4)
			} else {
				m.RefMSPer1kToken = round(rb*1e6, 3)
			}
		}
		if se.kvContext {
			m.MSPerKVPercent = round(b*1000, 4)
		} else {
			m.MSPer1kToken = round(b*1e6, 3)
			r.Forecast = se.forecast()
		}
		r.StepModel = m
	}
	if se.tps.N() > 0 {
		m, p, ok := se.tps.Means()
		t := &TPSStats{MeasuredMean: round(m, 2)}
		if ok {
			t.PredictedMean = round(p, 2)
			t.MAPE = round(se.tps.MAPE(), 4)
		}
		r.TPS = t
	}
	for _, a := range se.anomalies {
		r.Anomalies = append(r.Anomalies, anomalyJSON(a))
	}
	r.Readiness = se.readinessReport()
	att, ok := se.attribution()
	if ok {
		r.Attribution = attributionJSON(att, &se.win.Best, &se.win.Last)
	}
	r.Verdict, r.Explanation = se.verdict(att, ok)
	se.fusionReport(&r)
	return r
}

// attribution explains the latest full window against the best one with the current fit.
func (se *Series) attribution() (Attribution, bool) {
	if !se.win.Full() || se.fit.N() < se.warmup() {
		return Attribution{}, false
	}
	a, b := se.fit.Coef()
	return Attribute(mean(&se.win.Best), mean(&se.win.Last), a, b)
}

func (se *Series) forecast() []Forecast {
	c := se.short.Mean()
	if se.short.N() == 0 {
		c = 1
	}
	out := make([]Forecast, 0, len(se.opts.ForecastContexts))
	for _, ctx := range se.opts.ForecastContexts {
		step := se.fit.Predict(float64(ctx))
		if step <= 0 {
			continue
		}
		out = append(out, Forecast{Context: ctx, StepMS: round(step*1000, 2), TPS: round(c/step, 2)})
	}
	return out
}

func attributionJSON(a Attribution, best, last *window.Sum) *AttributionJSON {
	win := func(w *window.Sum, m AttributionWindow) WindowJSON {
		return WindowJSON{Start: time.Unix(0, w.Start).UTC(), End: time.Unix(0, w.End).UTC(), TPS: round(m.TPS, 2),
			Context: round(m.Context, 1), CommitLen: round(m.Commit, 3), StepMS: round(m.Step*1000, 2), Running: round(m.Running, 2)}
	}
	return &AttributionJSON{
		Baseline: win(best, a.Baseline), Current: win(last, a.Current),
		LogRatio: round(a.LogRatio, 4), Acceptance: round(a.Acceptance, 4), Context: round(a.Context, 4),
		Residual: round(a.Residual, 4), Batch: round(a.Batch, 4), Total: round(a.Total, 4),
	}
}

// counts reports whether the series had (offline) or has (live) an episode of kind k.
func (se *Series) counts(k AnomalyKind) bool {
	if se.opts.Live {
		return se.Active(k)
	}
	return se.raised[k] > 0
}

// fallThreshold: a fall of less than 10 % between windows is noise, not a change to explain.
const fallThreshold = -0.105 // ln(0.9)

func (se *Series) verdict(a Attribution, ok bool) (string, string) {
	var b strings.Builder
	verdict := "healthy"
	for _, k := range []AnomalyKind{CommitLenStuck, MetricsInconsistent, ThroughputCollapse, AcceptanceDrop, StepTimeRegression, RankSkew, RestartRegression, SpeculationDisabled, FormatDrift, Stale} {
		if !se.counts(k) {
			continue
		}
		switch k {
		case CommitLenStuck, MetricsInconsistent, ThroughputCollapse:
			verdict = "anomalous"
		case AcceptanceDrop, StepTimeRegression, RankSkew, RestartRegression, SpeculationDisabled:
			if verdict == "healthy" {
				verdict = "degraded"
			}
		}
		b.WriteString(se.anomalySentence(k))
		b.WriteString(" ")
	}
	if se.rs.note != "" {
		b.WriteString(se.rs.note + " ")
	}
	if !ok {
		if se.fit.N() < se.warmup() {
			b.WriteString(se.noFitReason())
		} else {
			b.WriteString(sprintf("Not enough decode samples for attribution yet (a window is %d samples).", se.opts.AttributionWindow))
		}
		return verdict, strings.TrimSpace(b.String())
	}
	verdict = se.explainChange(&b, a, verdict)
	return verdict, strings.TrimSpace(b.String())
}

// explainChange writes the engineer's conclusion: from what to what, and why, and returns the
// verdict it leads to (model/internal/explain).
func (se *Series) explainChange(b *strings.Builder, a Attribution, verdict string) string {
	w := func(w AttributionWindow) explain.Window {
		return explain.Window{TPS: w.TPS, Commit: w.Commit, Context: w.Context, Step: w.Step, Running: w.Running}
	}
	c := explain.Change{Base: w(a.Baseline), Cur: w(a.Current), Total: a.Total, Batch: a.Batch, LogRatio: a.LogRatio,
		Acceptance: a.Acceptance, Context: a.Context, Residual: a.Residual, BaseModel: a.BaselineModel, CurModel: a.CurrentModel,
		Unarmed: se.unarmed()}
	explain.Write(b, c, fallThreshold, se.kvContext,
		sprintf("%.1f ms + %.2f ms per %s", se.fitA()*1000, se.fitBPer()*1000, se.perUnit()))
	return explain.Conclude(b, verdict, c, fallThreshold, se.opts.ResidualDegraded)
}

func (se *Series) anomalySentence(k AnomalyKind) string {
	var last Anomaly
	for _, a := range se.anomalies {
		if a.Kind == k {
			last = a
		}
	}
	state := "ended " + time.Unix(0, last.End).UTC().Format(time.DateTime)
	if last.End == 0 {
		state = "active"
	}
	return sprintf("%s since %s (%s): %s.", k, time.Unix(0, last.Start).UTC().Format(time.DateTime), state, last.Detail)
}

// round keeps reports readable and stable across platforms' last-bit differences.
func round(x float64, digits int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
