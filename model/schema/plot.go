package schema

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

// HistoryPoint is one plotted observation. Pred is NaN until the fit is warm.
type HistoryPoint struct {
	T                                      int64
	Ctx, Step, Commit, TPS, Pred, PredStep float32
	Idle                                   bool
}
