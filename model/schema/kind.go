package schema

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

// ReadinessDetectors learn a baseline before they judge, in the order reports list their
// readiness; the others (commit_len_stuck, metrics_inconsistent, format_drift) judge from the
// first sample.
var ReadinessDetectors = [...]AnomalyKind{AcceptanceDrop, StepTimeRegression, ThroughputCollapse}

// NumReadiness is the number of ReadinessDetectors.
const NumReadiness = len(ReadinessDetectors)
