package model

import "github.com/specwatch/specwatch/model/schema"

// SeriesPlot and HistoryPoint are model/schema's plot data, named here as the model's.
type (
	SeriesPlot   = schema.SeriesPlot
	HistoryPoint = schema.HistoryPoint
)

// Plots returns a copy of every series' plot data (safe to use after the Set moves on).
func (m *Set) Plots() []SeriesPlot {
	out := make([]SeriesPlot, 0, len(m.order))
	for _, se := range m.order {
		out = append(out, se.plot())
	}
	return out
}

func (se *Series) plot() SeriesPlot {
	p := SeriesPlot{Labels: se.labels, ContextUnit: "tokens", Points: append([]HistoryPoint(nil), se.hist.Pts...)}
	if se.kvContext {
		p.ContextUnit = "kv_percent"
	}
	if se.fit.N() >= se.warmup() {
		p.FitA, p.FitB = se.fit.Coef()
		p.FitOK = true
	}
	for _, a := range se.anomalies {
		p.Anomalies = append(p.Anomalies, anomalyJSON(a))
	}
	return p
}
