package schema

// Code names a finding: which sentence says it. The model decides and measures; the words are
// report/words', which reads the numbers of an Evidence by the code's layout below.
type Code uint8

const (
	CodeNone Code = iota
	// commit_len_stuck: N commit, samples (or requests), running, accepted depth (0: none to cite)
	CodeStuckSamples
	CodeStuckRequests
	// metrics_inconsistent
	CodeDepthMismatch       // N commit, depth, |commit−1−depth|
	CodeDraftsMismatch      // N commit, accepted drafts
	CodeTPSMismatch         // N measured tok/s, commit, running, step ms, implied tok/s
	CodeAcceptedOverDrafted // N accepted, drafted
	// throughput_collapse: N tok/s, percent of prediction, predicted tok/s, context, commit, samples
	CodeCollapse
	// acceptance_drop: N window mean, baseline, spread, percent lower, windows, window size
	CodeDropWindows
	// acceptance_drop (slow half): N mean, samples, reference, spread, percent lower
	CodeSlowDrift
	// step_time_regression: N percent slower, context, expected ms, fit a ms, fit b ms per unit, windows
	CodeRegression
	CodeFormatDrift // N malformed lines, lines
	CodeStale       // N silence (ns); T0 the last sample
	// rank_skew
	CodeSkewAccept // N own commit, percent below, the peers' commit, peers
	CodeSkewStep   // N context, percent slower, own ms, the peers' ms, peers
	// restart_regression, and a restart judged harmless: T0 the restart; N has steps (0/1),
	// step change percent, decode points, has acceptance (0/1), commit now, commit before,
	// commit change percent
	CodeRestartRegressed
	CodeRestartFine
	// speculation_disabled: N after (ns), batch size, cause (SpecCause), accepted, threshold
	CodeSpecOff
	// events
	CodeRestartCounters  // the counters went back
	CodeRestartLogged    // the start-up line
	CodeRestartPublisher // the forward-pass publisher's sequence went back
	CodeSpecOn           // N batch, batch when it was off
	CodeSpecOffBatch     // N batch, batch when it drafted
	// why acceptance_drop did not judge a fall: N samples it needs; T0 armed, T1 baseline end
	CodeDropWarming
	CodeDropArmedLate
	NumCodes
)

// The causes of speculation_disabled that CodeSpecOff's third number names.
const (
	SpecCauseNone     = 0
	SpecCauseGate     = 1 // TensorRT-LLM's SpeculationGate
	SpecCauseAdaptive = 2 // SGLang's adaptive speculation
)

// Evidence is what one finding rests on: its code and its numbers, times apart so that they
// keep every nanosecond.
type Evidence struct {
	Code Code
	T    [2]int64 // Unix ns
	N    [8]float64
}

// Ev is an Evidence of code c with numbers n.
func Ev(c Code, n ...float64) Evidence {
	e := Evidence{Code: c}
	copy(e.N[:], n)
	return e
}
