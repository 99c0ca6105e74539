package model

import "github.com/specwatch/specwatch/model/schema"

// A detector is one anomaly kind's test on one series, in the file named after its kind:
// stuck.go (commit_len_stuck), inconsistent.go, accdrop.go (acceptance_drop), regression.go
// (step_time_regression), collapse.go, stale.go, formatdrift.go, skew.go (rank_skew),
// restart.go (restart_regression), specoff.go (speculation_disabled).
//
// Lifecycle: newSeries makes one of each, configured by the series' options. The series'
// goroutine hands each one the observations of its kind (Series.feed), in log order; observe
// raises and clears the kind's episodes through the series (Series.raise, Series.clear) and
// keeps what it learns. clear forgets the evidence in flight — streaks, unfinished windows —
// but not what was learned of the series (baselines, reference fits): the engine restarted
// (restart.go), and what the old process said must not count toward what the new one says.
// reconfigure takes the thresholds of new options (a reload) and keeps everything learned.
type detector interface {
	observe(se *Series, o *obs)
	clear()
	reconfigure(o *Options)
}

// obsKind says what an observation is.
type obsKind uint8

const (
	obsCommit   obsKind = iota // a commit length sample: commit, stuck, st
	obsContra                  // a test of the engine's figures against each other: bad, ev
	obsPoint                   // a decode point: p, and predTPS where the fit predicts (else NaN)
	obsLine                    // a line with the engine marker: malformed
	obsDrafting                // steps with or without drafts: running, drafting
	obsSample                  // a sample arrived
	obsTick                    // the daemon's clock: now (Unix ns)
)

// obs is one observation. The Series holds one (Series.in, made once: a pointer, which its
// saved state skips), so that handing it through the detector interface allocates nothing;
// only the fields of its kind hold.
type obs struct {
	what      obsKind
	t         int64 // the series' log time of the observation
	commit    float64
	stuck     bool
	st        stuckTest
	bad       bool
	ev        schema.Evidence
	p         point
	predTPS   float64
	malformed bool
	running   float64
	drafting  bool
	now       int64 // and when the series' unit last logged, and the silence that is stale
	unitLast  int64
	after     int64
}

// detectors are a series' detectors, one per anomaly kind.
type detectors struct {
	stuck        stuckDetector
	inconsistent inconsistentDetector
	drop         dropDetector
	regress      regressionDetector
	collapse     collapseDetector
	stale        staleDetector
	format       formatDetector
	skew         skewDetector
	restart      restartDetector
	specoff      specoffDetector
}

// wire makes the detectors of se, and their index by kind.
func (se *Series) wire(o *Options) {
	se.in = new(obs)
	d := &se.det
	d.drop = newDropDetector(o)
	d.regress = newRegressionDetector(o)
	d.format = newFormatDetector(o)
	se.dets = [NumAnomalyKinds]detector{
		CommitLenStuck: &d.stuck, MetricsInconsistent: &d.inconsistent, AcceptanceDrop: &d.drop,
		StepTimeRegression: &d.regress, ThroughputCollapse: &d.collapse, Stale: &d.stale, FormatDrift: &d.format,
		RankSkew: &d.skew, RestartRegression: &d.restart, SpeculationDisabled: &d.specoff,
	}
}

// at starts an observation of kind what at t in se.in and returns it.
func (se *Series) at(what obsKind, t int64) *obs {
	*se.in = obs{what: what, t: t}
	return se.in
}

// feed hands o to the detector of kind k.
func (se *Series) feed(k AnomalyKind, o *obs) { se.dets[k].observe(se, o) }

// clearDetectors makes every detector forget its evidence in flight.
func (se *Series) clearDetectors() {
	for _, d := range se.dets {
		d.clear()
	}
}
