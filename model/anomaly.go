package model

import (
	"time"

	"github.com/specwatch/specwatch/model/schema"
)

// The anomaly kinds are model/schema's, named here as the model's.
type AnomalyKind = schema.AnomalyKind

const (
	CommitLenStuck      = schema.CommitLenStuck
	MetricsInconsistent = schema.MetricsInconsistent
	AcceptanceDrop      = schema.AcceptanceDrop
	StepTimeRegression  = schema.StepTimeRegression
	ThroughputCollapse  = schema.ThroughputCollapse
	Stale               = schema.Stale
	FormatDrift         = schema.FormatDrift
	RankSkew            = schema.RankSkew
	RestartRegression   = schema.RestartRegression
	SpeculationDisabled = schema.SpeculationDisabled
	NumAnomalyKinds     = schema.NumAnomalyKinds
)

// Anomaly is one episode. End is 0 while it is active.
type Anomaly struct {
	Kind       AnomalyKind
	Start, End int64 // Unix ns
	Evidence   schema.Evidence
}

// maxAnomalies bounds the episodes a series remembers (active ones are always kept).
const maxAnomalies = 64

// raise opens an episode of kind k, resting on ev, unless one is active.
func (se *Series) raise(k AnomalyKind, t int64, ev schema.Evidence) {
	if se.active[k] >= 0 {
		return
	}
	if len(se.anomalies) >= maxAnomalies {
		se.dropOldestClosed()
	}
	se.anomalies = append(se.anomalies, Anomaly{Kind: k, Start: t, Evidence: ev})
	se.active[k] = len(se.anomalies) - 1
	se.raised[k]++
}

// clear closes the active episode of kind k, if any. It never ends before it started: stale
// is dated by the daemon's clock turned into log time, which an estimate can only approach.
func (se *Series) clear(k AnomalyKind, t int64) {
	i := se.active[k]
	if i < 0 {
		return
	}
	se.anomalies[i].End = max(t, se.anomalies[i].Start)
	se.active[k] = -1
}

func (se *Series) dropOldestClosed() {
	for i, a := range se.anomalies {
		if a.End == 0 {
			continue
		}
		copy(se.anomalies[i:], se.anomalies[i+1:])
		se.anomalies = se.anomalies[:len(se.anomalies)-1]
		for k := range se.active {
			if se.active[k] > i {
				se.active[k]--
			}
		}
		return
	}
}

// Active reports whether an episode of kind k is open.
func (se *Series) Active(k AnomalyKind) bool { return se.active[k] >= 0 }

func anomalyJSON(a Anomaly) AnomalyJSON {
	j := AnomalyJSON{Kind: a.Kind.String(), Severity: a.Kind.Severity(), Start: time.Unix(0, a.Start).UTC(), Evidence: a.Evidence}
	if a.End != 0 {
		e := time.Unix(0, a.End).UTC()
		j.End = &e
	}
	return j
}
