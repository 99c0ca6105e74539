package schema

import "time"

// Report is the diagnosis of every series: the JSON of `specwatch analyze --format json` and of
// /api/v1/report. Field names are public interface (docs/report.md): dashboards and scripts read them.
type Report struct {
	Input  InputCounts    `json:"input"`
	Series []SeriesReport `json:"series"`
}

// SeriesReport is one series' diagnosis. Pointers mark parts that are absent until the series
// has the data for them (a fit needs samples spanning some context).
type SeriesReport struct {
	Labels  Labels    `json:"labels"`
	Samples int64     `json:"samples"`
	First   time.Time `json:"first"`
	Last    time.Time `json:"last"`
	// ContextUnit is "tokens" (SGLang #token), or "kv_percent" for vLLM, which logs only the
	// share of its KV cache in use.
	ContextUnit string           `json:"context_unit"`
	StepModel   *StepModel       `json:"step_model,omitempty"`
	CommitLen   *CommitStats     `json:"commit_len,omitempty"`
	TPS         *TPSStats        `json:"tps,omitempty"`
	Forecast    []Forecast       `json:"forecast,omitempty"`
	Attribution *AttributionJSON `json:"attribution,omitempty"`
	Anomalies   []AnomalyJSON    `json:"anomalies"`
	// Readiness lists the detectors that learn a baseline first: armed, or warming up.
	Readiness []Readiness `json:"readiness,omitempty"`
	// PerPosition is acceptance per draft position, where the engine states it (vLLM, llama.cpp).
	PerPosition *PerPosition `json:"per_position,omitempty"`
	// Events are the series' restarts and speculation switches with the batch size.
	Events []Event `json:"events,omitempty"`
	// NotSpeculating counts the samples whose steps drafted nothing (speculation off by the
	// engine's policy), kept out of the commit length.
	NotSpeculating int64 `json:"not_speculating,omitempty"`
	// Sources says which input gave which figure: logs, the engine's /metrics, or both.
	Sources     *Sources   `json:"sources,omitempty"`
	Verdict     string     `json:"verdict,omitempty"`
	Explanation string     `json:"explanation,omitempty"` // report/words writes it from Diagnosis
	Diagnosis   *Diagnosis `json:"-"`
}

// Event is one event of a series' life that is not an anomaly (a restart, speculation
// switched with the batch size); report/words writes Detail from Evidence.
type Event struct {
	Kind     string    `json:"kind"`
	Time     time.Time `json:"time"`
	Detail   string    `json:"detail"`
	Evidence Evidence  `json:"-"`
}

// Sources says where a series' figures came from: "logs" or "metrics" (the engine's own
// /metrics); a figure no source gave is empty. Reported for series the scrape source fed.
type Sources struct {
	Inputs      []string `json:"inputs"`
	CommitLen   string   `json:"commit_len,omitempty"`
	PerPosition string   `json:"per_position,omitempty"`
	Step        string   `json:"step,omitempty"` // step time and context
}
