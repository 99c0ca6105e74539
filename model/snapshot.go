package model

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

	Forecast  [maxForecast]Forecast
	NForecast int

	// Attribution of the latest window against the best one (log ratios).
	AttrAcceptance, AttrContext, AttrResidual float64
	AttrOK                                    bool

	Active [NumAnomalyKinds]bool
	Raised [NumAnomalyKinds]int64

	// Samples counts this series' samples by parse kind (decode, spec, prefill, event).
	Samples [numSampleKinds]int64
	// Points counts decode points (step observations) so far; StepSeq changes with each.
	Points int64

	// PerPos[i] is the acceptance of draft position i+1 (position.go), NPos of them.
	PerPos [sample.MaxPerPosition]float64
	NPos   int
}

const maxForecast = 8

// numSampleKinds covers parse.Kind values (none, decode, spec, prefill, event).
const numSampleKinds = 5

// SampleKindName names index k of SeriesSnapshot.Samples.
func SampleKindName(k int) string {
	return [...]string{"none", "decode", "spec", "prefill", "event"}[k]
}

// Snapshot appends a copy of every series to dst[:0] and returns it; reusing dst across scrapes
// keeps the copy free of allocation once it has grown.
func (m *Set) Snapshot(dst []SeriesSnapshot) []SeriesSnapshot {
	dst = dst[:0]
	for _, se := range m.order {
		dst = append(dst, SeriesSnapshot{})
		se.snapshotInto(&dst[len(dst)-1])
	}
	return dst
}

func (se *Series) snapshotInto(s *SeriesSnapshot) {
	c := &se.cur
	s.ID, s.Labels, s.LastSample = se.id, se.labels, se.last
	s.Quiet, s.Gone = se.expired()
	s.ClockOffset, s.HasClockOffset = se.ClockOffset()
	s.Commit, s.HasCommit = c.commit, c.has&curCommit != 0
	s.AcceptRate, s.HasAcceptRate = c.acceptRate, c.has&curAcceptRate != 0
	s.AcceptedDepth, s.HasDepth = c.depth, c.has&curDepth != 0
	s.Context, s.HasContext = c.ctx, c.has&curCtx != 0
	s.Running, s.HasRunning = c.running, c.has&curRunning != 0
	s.Step, s.TPS, s.HasStep = c.step, c.tps, c.has&curStep != 0
	s.KVContext = se.kvContext
	if se.fit.N() >= se.warmup() {
		s.FitA, s.FitB = se.fit.Coef()
		s.FitOK = true
		if !se.kvContext {
			cm := se.short.Mean()
			if se.short.N() == 0 {
				cm = 1
			}
			for _, ctx := range se.opts.ForecastContexts {
				if s.NForecast == maxForecast {
					break
				}
				if st := se.fit.Predict(float64(ctx)); st > 0 {
					s.Forecast[s.NForecast] = Forecast{Context: ctx, StepMS: st * 1000, TPS: cm / st}
					s.NForecast++
				}
			}
		}
	}
	s.PredTPS, s.HasPred = c.predTPS, c.has&curPred != 0
	if a, ok := se.attribution(); ok {
		s.AttrAcceptance, s.AttrContext, s.AttrResidual, s.AttrOK = a.Acceptance, a.Context, a.Residual, true
	}
	for k := range s.Active {
		s.Active[k] = se.active[k] >= 0
	}
	s.Raised = se.raised
	s.Samples = se.kindCount
	s.Points = se.points
	s.NPos = copy(s.PerPos[:], se.pos.Acceptance(s.PerPos[:0])) // within the exporter's array
}

// StepObserved reports the step of the latest decode point and a sequence number that changes
// with every point, so that the owner can feed a histogram exactly once per point.
func (se *Series) StepObserved() (step float64, seq int64) { return se.cur.step, se.points }

// ID is the series' dense index in its Set.
func (se *Series) ID() int { return se.id }

// Labels are the series' labels.
func (se *Series) Labels() Labels { return se.labels }
