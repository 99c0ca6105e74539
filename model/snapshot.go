package model

import (
	"github.com/specwatch/specwatch/model/schema"
)

// SeriesSnapshot and Ready are model/schema's, named here as the model's.
type (
	SeriesSnapshot = schema.SeriesSnapshot
	Ready          = schema.Ready
)

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
				if s.NForecast == schema.MaxForecast {
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
	se.readiness(&s.Ready)
	for k := range s.Active {
		s.Active[k] = se.active[k] >= 0
	}
	s.Raised = se.raised
	s.Samples = se.kindCount
	s.Points = se.points
	s.CommittedTokens, s.VerifySteps, s.HasCommitCounts = se.committed.tokens, se.committed.steps, se.committed.seen
	s.NPos = copy(s.PerPos[:], se.pos.Acceptance(s.PerPos[:0])) // within the exporter's array
}

// StepObserved reports the step of the latest decode point and a sequence number that changes
// with every point, so that the owner can feed a histogram exactly once per point.
func (se *Series) StepObserved() (step float64, seq int64) { return se.cur.step, se.points }

// ID is the series' dense index in its Set.
func (se *Series) ID() int { return se.id }

// Labels are the series' labels.
func (se *Series) Labels() Labels { return se.labels }
