package model

import "time"

// AnomalyKind is the fixed vocabulary of docs/report.md; the strings are public (metric labels,
// alert rules, report JSON).
type AnomalyKind uint8

const (
	CommitLenStuck AnomalyKind = iota
	MetricsInconsistent
	AcceptanceDrop
	StepTimeRegression
	ThroughputCollapse
	Stale
	FormatDrift
	RankSkew
	RestartRegression
	SpeculationDisabled
	NumAnomalyKinds
)

var anomalyNames = [NumAnomalyKinds]string{"commit_len_stuck", "metrics_inconsistent", "acceptance_drop",
	"step_time_regression", "throughput_collapse", "stale", "format_drift", "rank_skew", "restart_regression", "speculation_disabled"}

// Severities: critical only where speculation itself is broken — a drafter that contributes
// nothing, or engine figures that contradict each other (every number built on them is wrong).
// A slowdown, however deep, is a warning: the service still serves, and a page at night for
// throughput that context or text explains is the false alarm operators learn to ignore.
var anomalySeverity = [NumAnomalyKinds]string{"critical", "critical", "warning", "warning", "warning", "warning", "warning",
	"warning", "warning", "warning"}

func (k AnomalyKind) String() string {
	if k < NumAnomalyKinds {
		return anomalyNames[k]
	}
	return "unknown"
}

// Severity is critical, warning or info.
func (k AnomalyKind) Severity() string {
	if k < NumAnomalyKinds {
		return anomalySeverity[k]
	}
	return "info"
}

// Anomaly is one episode. End is 0 while it is active.
type Anomaly struct {
	Kind       AnomalyKind
	Start, End int64 // Unix ns
	Detail     string
}

// maxAnomalies bounds the episodes a series remembers (active ones are always kept).
const maxAnomalies = 64

// raise opens an episode of kind k unless one is active; detail is built only then, so the hot
// path never formats strings.
func (se *Series) raise(k AnomalyKind, t int64, detail func() string) {
	if se.active[k] >= 0 {
		return
	}
	if len(se.anomalies) >= maxAnomalies {
		se.dropOldestClosed()
	}
	se.anomalies = append(se.anomalies, Anomaly{Kind: k, Start: t, Detail: detail()})
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
	j := AnomalyJSON{Kind: a.Kind.String(), Severity: a.Kind.Severity(), Start: time.Unix(0, a.Start).UTC(), Detail: a.Detail}
	if a.End != 0 {
		e := time.Unix(0, a.End).UTC()
		j.End = &e
	}
	return j
}
