package schema

import (
	"time"

	"github.com/specwatch/specwatch/sample"
)

// SeriesSnapshot is a copy of one series' current figures for the exporter: taken under the
// owner's lock in microseconds, then encoded for a scrape without holding anything.
// Has* flags say whether a figure was ever observed: an absent gauge is absent, not zero.
type SeriesSnapshot struct {
	ID     int // dense index of the series in its Set, stable for the Set's life
	Labels Labels

	LastSample int64 // Unix ns of the latest sample
	// ClockOffset is the latest live sample's stamp minus when it arrived (heard.go).
	ClockOffset    time.Duration
	HasClockOffset bool
	// Quiet: no sample for the model's ExpireAfter, so the figures are no longer current; Gone:
	// its unit went silent too (expire.go). The exporter leaves out what they void.
	Quiet, Gone bool

	Commit, AcceptRate, AcceptedDepth  float64
	Context, Running, Step, TPS        float64
	HasCommit, HasAcceptRate, HasDepth bool
	HasContext, HasRunning, HasStep    bool
	KVContext                          bool // Context is KV cache usage in percent (vLLM)

	// The fit (s, s per context unit) and the model's tok/s at the current context.
	FitA, FitB, PredTPS float64
	FitOK, HasPred      bool

	Forecast  [MaxForecast]Forecast
	NForecast int

	// Attribution of the latest window against the best one (log ratios).
	AttrAcceptance, AttrContext, AttrResidual float64
	AttrOK                                    bool

	Ready  [NumReadiness]Ready
	Active [NumAnomalyKinds]bool
	Raised [NumAnomalyKinds]int64

	// Samples counts this series' samples by parse kind (decode, spec, prefill, event).
	Samples [NumSampleKinds]int64
	// CommittedTokens and VerifySteps sum the tokens committed and the verify steps behind the
	// commit lengths whose steps are known (model/commitcount.go): their ratio over a range is
	// the mean commit length. HasCommitCounts once a sample was counted.
	CommittedTokens, VerifySteps float64
	HasCommitCounts              bool
	// Points counts decode points (step observations) so far; StepSeq changes with each.
	Points int64

	// PerPos[i] is the acceptance of draft position i+1 (position.go), NPos of them.
	PerPos [sample.MaxPerPosition]float64
	NPos   int
}

// MaxForecast bounds the forecast contexts a snapshot holds.
const MaxForecast = 8

// NumSampleKinds covers parse.Kind values (none, decode, spec, prefill, event).
const NumSampleKinds = 5

// SampleKindName names index k of SeriesSnapshot.Samples.
func SampleKindName(k int) string {
	return [NumSampleKinds]string{"none", "decode", "spec", "prefill", "event"}[k]
}

// Ready is one detector's readiness: armed since At (Unix ns; 0 where the detector does not
// keep it), or needing Need more samples.
type Ready struct {
	Detector AnomalyKind
	Armed    bool
	At       int64
	Need     int
}

// JSON is r as the report has it.
func (r Ready) JSON() Readiness {
	j := Readiness{Detector: r.Detector.String(), Armed: r.Armed, NeedsSamples: r.Need}
	if r.Armed && r.At != 0 {
		t := time.Unix(0, r.At).UTC()
		j.ArmedAt = &t
	}
	return j
}
