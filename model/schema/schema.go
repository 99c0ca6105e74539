// Package schema is the vocabulary of the report's JSON (docs/report.md) that depends on
// nothing in the model: model names each type again (model.Labels, model.CommitStats, …), and
// they are used through it. Field names are public interface: dashboards and scripts read them.
package schema

import (
	"time"

	"github.com/specwatch/specwatch/model/rank"
)

// InputCounts accounts for every record read, so that nothing is silently lost: lines =
// samples + ignored + malformed.
type InputCounts struct {
	Lines     int64 `json:"lines"`
	Samples   int64 `json:"samples"`
	Ignored   int64 `json:"ignored"`
	Malformed int64 `json:"malformed"`
	// Unreadable counts records the reader could not decode at all (a broken JSON object, an
	// export entry with an impossible length); they never became lines.
	Unreadable int64 `json:"unreadable"`
	// OutOfRange counts samples outside the requested time range; they are not in lines.
	OutOfRange int64 `json:"out_of_range,omitempty"`
	// Dropped counts samples of series past the series cap (max_series): read and matched,
	// but in no series of the report.
	Dropped int64 `json:"dropped,omitempty"`
	// DamagedInputs counts inputs read only as far as they decoded (a truncated or corrupt
	// gzip member, trailing garbage); the report holds what came before the damage.
	DamagedInputs int64 `json:"damaged_inputs,omitempty"`
}

// Labels identify a series: one rank of one engine process on one host.
type Labels struct {
	Host   string `json:"host"`
	Unit   string `json:"unit"`
	Engine string `json:"engine"`
	Rank   string `json:"rank"`
	// Container, Namespace and Pod are empty where the source names no container.
	Container string `json:"container,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Pod       string `json:"pod,omitempty"`
}

// LabelNames are the labels that name a series, engine first, in the order reports show them.
var LabelNames = [...]string{"engine", "host", "unit", "namespace", "pod", "container", "rank"}

// Value returns the label called name, one of LabelNames or rank.LabelNames ("" for an
// unknown name or an empty label).
func (l Labels) Value(name string) string {
	switch name {
	case "engine":
		return l.Engine
	case "host":
		return l.Host
	case "unit":
		return l.Unit
	case "namespace":
		return l.Namespace
	case "pod":
		return l.Pod
	case "container":
		return l.Container
	case "rank":
		return l.Rank
	}
	return rank.Split(l.Rank).Value(name)
}

// StepModel is the fitted step = a + b·context, in the units people read.
type StepModel struct {
	FixedMS        float64 `json:"fixed_ms"`
	MSPer1kToken   float64 `json:"ms_per_1k_tokens,omitempty"`
	MSPerKVPercent float64 `json:"ms_per_kv_percent,omitempty"`
	R2             float64 `json:"r2"`
	N              int     `json:"n"`
	// Where the draft tokens a verify step checks (u) vary (llama.cpp's n-gram drafting), the
	// step is a + b·context + c·u + d·u·context and the fields above are that fit's; these are
	// c and d (docs/report.md).
	MSPerDraftToken       float64 `json:"ms_per_draft_token,omitempty"`
	MSPerDraftTokenPer1kT float64 `json:"ms_per_draft_token_per_1k_tokens,omitempty"`
	// The robust reference fit (Theil–Sen over the latest points): far from the rolling fit
	// means a run of odd samples is dragging one of them.
	RefFixedMS        float64 `json:"ref_fixed_ms,omitempty"`
	RefMSPer1kToken   float64 `json:"ref_ms_per_1k_tokens,omitempty"`
	RefMSPerKVPercent float64 `json:"ref_ms_per_kv_percent,omitempty"`
}

// CommitStats summarise commit length (tokens committed per verify step). Mean is over samples
// (per request, for llama.cpp); PooledMean, where samples state their verify steps, is per
// verify step: Σ committed tokens / Σ steps, which long requests weigh by their length.
type CommitStats struct {
	Mean       float64 `json:"mean"`
	PooledMean float64 `json:"pooled_mean,omitempty"`
	P10        float64 `json:"p10"`
	P50        float64 `json:"p50"`
	P90        float64 `json:"p90"`
	Last       float64 `json:"last"`
}

// TPSStats compare measured decode throughput with the model's prediction.
type TPSStats struct {
	MeasuredMean  float64 `json:"measured_mean"`
	PredictedMean float64 `json:"predicted_mean"`
	MAPE          float64 `json:"mape"`
}

// Forecast answers "what will a request at this context get here?".
type Forecast struct {
	Context int     `json:"context"`
	StepMS  float64 `json:"step_ms"`
	TPS     float64 `json:"tps"`
}

// WindowJSON summarises a stretch of a series for attribution.
type WindowJSON struct {
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	TPS       float64   `json:"tps"`
	Context   float64   `json:"context"`
	CommitLen float64   `json:"commit_len"`
	StepMS    float64   `json:"step_ms"`
	Running   float64   `json:"running"`
}

// AttributionJSON splits ln(T2/T1) between baseline and current windows into acceptance, context
// and residual terms that add up exactly.
type AttributionJSON struct {
	Baseline   WindowJSON `json:"baseline"`
	Current    WindowJSON `json:"current"`
	LogRatio   float64    `json:"log_ratio"`
	Acceptance float64    `json:"acceptance"`
	Context    float64    `json:"context"`
	Residual   float64    `json:"residual"`
	// Batch is ln(r2/r1), the change of running requests; LogRatio is per request and Total =
	// Batch + LogRatio is the change of the whole batch's tok/s.
	Batch float64 `json:"batch"`
	Total float64 `json:"total"`
}

// AnomalyJSON is one anomaly as reported; End is nil while it is active.
type AnomalyJSON struct {
	Kind     string     `json:"kind"`
	Severity string     `json:"severity"`
	Start    time.Time  `json:"start"`
	End      *time.Time `json:"end"`
	Detail   string     `json:"detail"` // report/words writes it from Evidence
	Evidence Evidence   `json:"-"`
}

// PerPosition is acceptance per draft position: Acceptance[i] is the share of verify steps
// whose draft token at position i+1 was accepted, Conditional[i] the same given that position
// i was (Acceptance[i] / Acceptance[i-1]). Advice is set when positions at the end cost more
// than they add (docs/report.md).
type PerPosition struct {
	Acceptance  []float64       `json:"acceptance"`
	Conditional []float64       `json:"conditional"`
	Samples     int64           `json:"samples"`
	Advice      *PositionAdvice `json:"advice,omitempty"`
}

// PositionAdvice says a shorter draft would commit nearly the same tokens for less work.
type PositionAdvice struct {
	Configured         int     `json:"configured"`
	Suggested          int     `json:"suggested"`
	CommitLen          float64 `json:"commit_len"`
	SuggestedCommitLen float64 `json:"suggested_commit_len"`
	Detail             string  `json:"detail"` // report/words writes it from the rest
	// Unrounded: tokens per verify step with every position and with the suggested ones, the
	// acceptance of the positions to drop, and a position's cost as a fraction of a step.
	Commit, Kept, Cost float64   `json:"-"`
	Dropped            []float64 `json:"-"`
}

// Readiness says whether a detector of the series judges yet: armed (since ArmedAt), or
// warming up and needing at least NeedsSamples more samples.
type Readiness struct {
	Detector     string     `json:"detector"`
	Armed        bool       `json:"armed"`
	ArmedAt      *time.Time `json:"armed_at,omitempty"`
	NeedsSamples int        `json:"needs_samples,omitempty"`
}
