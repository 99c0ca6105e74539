package model

import (
	"math"
	"time"

	"github.com/specwatch/specwatch/model/internal/window"
	"github.com/specwatch/specwatch/model/schema"
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
	r.Verdict, r.Diagnosis = se.verdict(att, ok)
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

// verdict judges the series and says on what, for report/words to tell: its anomalies, a
// restart, and the change from the best window to the latest (ok: a is that attribution).
func (se *Series) verdict(a Attribution, ok bool) (string, *schema.Diagnosis) {
	d := &schema.Diagnosis{Restart: se.det.restart.note}
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
		d.Kinds = append(d.Kinds, k)
	}
	switch {
	case ok:
		c := se.change(a)
		verdict = conclude(verdict, c, se.opts.ResidualDegraded)
		d.Change = c
	case se.fit.N() < se.warmup():
		d.NoFit = se.noFit()
	default:
		d.Window = se.opts.AttributionWindow
	}
	return verdict, d
}

// change is the attribution a in the report's terms.
func (se *Series) change(a Attribution) *schema.Change {
	w := func(w AttributionWindow) schema.ChangeWindow {
		return schema.ChangeWindow{TPS: w.TPS, Commit: w.Commit, Context: w.Context, Step: w.Step, Running: w.Running}
	}
	return &schema.Change{Base: w(a.Baseline), Cur: w(a.Current), Total: a.Total, Batch: a.Batch, LogRatio: a.LogRatio,
		Acceptance: a.Acceptance, Context: a.Context, Residual: a.Residual, BaseModel: a.BaselineModel, CurModel: a.CurrentModel,
		FitA: se.fitA() * 1000, FitB: se.fitBPer() * 1000, Fall: fallThreshold, Unarmed: se.unarmed()}
}

// conclude decides what the residual of change c says and returns the verdict it leads to:
// verdict stands unless it is "healthy". A residual below −degraded (log ratio) makes a fall
// degraded rather than expected; a fall of commit length acceptance_drop did not see
// (c.Unarmed) is unjudged, not expected.
func conclude(verdict string, c *schema.Change, degraded float64) string {
	healthy := verdict == "healthy"
	switch {
	case c.LogRatio >= c.Fall && c.Total < c.Fall:
		c.Conclusion = schema.ConcludeSteady
		if healthy {
			verdict = "expected"
		}
	case c.LogRatio < c.Fall && c.Residual < -degraded:
		c.Conclusion = schema.ConcludeDegraded
		if healthy {
			verdict = "degraded"
		}
	case c.LogRatio < c.Fall:
		// "Expected" only when nothing else judged the series: under an anomaly's verdict the
		// same words would contradict the badge above them.
		unjudged := c.Unarmed.Code != schema.CodeNone && c.Acceptance < c.Fall
		switch {
		case !healthy:
			c.Conclusion = schema.ConcludeAnomaly
		case unjudged:
			c.Conclusion, verdict = schema.ConcludeUnjudged, "unjudged"
		default:
			c.Conclusion, verdict = schema.ConcludeExpected, "expected"
		}
	}
	return verdict
}

// round keeps reports readable and stable across platforms' last-bit differences.
func round(x float64, digits int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
