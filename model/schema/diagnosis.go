package schema

import "time"

// Diagnosis is what a series' explanation says, as codes and numbers: the model fills it,
// report/words writes the paragraph (SeriesReport.Explanation) from it.
type Diagnosis struct {
	// Kinds are the anomaly kinds the verdict counted, in the order the explanation names them;
	// each is told by its latest episode in SeriesReport.Anomalies.
	Kinds []AnomalyKind
	// Restart is a restart judged harmless (CodeRestartFine), else CodeNone.
	Restart Evidence
	// One of NoFit (the step model is warming up), Change (a change to explain) or, when both
	// are nil, Window: the samples an attribution window needs.
	NoFit  *NoFit
	Change *Change
	Window int
	// Restarts counts the restarts seen, the latest at LastRestart; RestartBy is how that one
	// was seen (CodeRestartLogged, CodeRestartCounters, CodeRestartPublisher).
	Restarts    int64
	LastRestart time.Time
	RestartBy   Code
}

// NoFit says why a series has no step model yet: N of Warmup points after Lines decode
// lines, Interval the decode log interval in use, and the lines kept out by reason.
type NoFit struct {
	N, Warmup, Interval           int
	Lines                         int64
	AfterIdle, NoContext, BadStep int64
	Shared, Untrusted             int64
}

// ChangeWindow is one attribution window's means.
type ChangeWindow struct{ TPS, Commit, Context, Step, Running float64 }

// Conclusion is what the residual of a change says.
type Conclusion uint8

const (
	ConcludeNone     Conclusion = iota // no fall to conclude on
	ConcludeSteady                     // per request nothing fell; the batch did
	ConcludeDegraded                   // steps slower than context explains
	ConcludeExpected                   // context and acceptance explain the fall
	ConcludeAnomaly                    // no step-time regression; an anomaly gave the verdict
	ConcludeUnjudged                   // acceptance_drop could not see the fall (Unarmed)
)

// Change is the attribution of a change from Base to Cur: log ratios, negative for losses,
// the step model's prediction at each window's context, and the fit in milliseconds (B per
// 1k tokens, or per 1 % KV cache).
type Change struct {
	Base, Cur              ChangeWindow
	Total, Batch, LogRatio float64
	Acceptance, Context    float64
	Residual               float64
	BaseModel, CurModel    float64
	FitA, FitB             float64
	// Fall is the log ratio below which a change is a fall to explain.
	Fall       float64
	Conclusion Conclusion
	// Unarmed says why acceptance_drop did not judge the windows (CodeDropWarming,
	// CodeDropArmedLate), else CodeNone.
	Unarmed Evidence
}
