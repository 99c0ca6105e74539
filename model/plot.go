package model

// SeriesPlot is what the status page and the HTML report draw for one series: the recorded
// points (decimated to a bounded number), the fitted step model and the anomaly episodes.
type SeriesPlot struct {
	Labels      Labels
	ContextUnit string
	// FitA (s) and FitB (s per context unit) are the current fit; FitOK is false until warm.
	FitA, FitB float64
	FitOK      bool
	Points     []HistoryPoint
	Anomalies  []AnomalyJSON
}

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
