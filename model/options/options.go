// Package options is the model's configuration and the one place for its defaults: the
// config file's model: keys map onto Options (config/), and model.NewSet fills what is unset.
package options

import (
	"time"

	"github.com/specwatch/specwatch/model/internal/defaults"
	"github.com/specwatch/specwatch/model/internal/estimate"
	"github.com/specwatch/specwatch/model/internal/slowdrift"
)

// Options configure a model.Set. Zero fields take the defaults below.
type Options struct {
	// MaxSeries caps the number of series (label cardinality); samples of further series are
	// counted in Overflow and dropped. Zero means DefaultMaxSeries.
	MaxSeries int
	// Live makes verdicts follow only the anomalies active now (the daemon); offline analysis
	// judges the whole period, so an episode that ended still marks the series.
	Live bool

	// DecodeLogInterval is SGLang's --decode-log-interval (decode steps per line).
	DecodeLogInterval int
	// IdleFactor marks a line after_idle when its gap to the previous line and its implied step
	// both exceed IdleFactor times what the series shows normally.
	IdleFactor float64

	Fit estimate.RLSOptions

	// Acceptance half-lives of the short and long commit-length means.
	ShortHalfLife, LongHalfLife time.Duration

	// StuckSamples consecutive samples at commit length 1.00 raise commit_len_stuck; StuckClear
	// consecutive healthy ones clear it.
	StuckSamples, StuckClear int
	// InconsistentSamples consecutive contradictions raise metrics_inconsistent.
	InconsistentSamples int
	// DepthTolerance bounds |commit − 1 − accepted depth|.
	DepthTolerance float64
	// TPSTolerance bounds |measured − commit·running/step| / measured when the step is logged.
	TPSTolerance float64

	// Window is the number of samples aggregated into one window for the sequential tests and
	// for attribution.
	Window int
	// AttributionWindow is the number of decode points in the baseline and current windows.
	AttributionWindow int
	// DropK, DropH: CUSUM allowance and threshold (in σ of a window mean) for acceptance_drop.
	DropK, DropH float64
	// DropMinEffect is the smallest relative fall of commit length acceptance_drop reports.
	DropMinEffect float64
	// RegressionK, RegressionH: the same for step_time_regression.
	RegressionK, RegressionH float64
	// RegressionMinEffect is the smallest slowdown (fraction) step_time_regression reports.
	RegressionMinEffect float64
	// WarmupWindows before the sequential tests are armed.
	WarmupWindows int
	// SlowDrift is acceptance_drop's second test, for drifts too slow for the first: the last
	// half hour against a baseline kept an hour behind (zero fields: its defaults).
	SlowDrift slowdrift.Options

	// CollapseRatio: measured below CollapseRatio × predicted tok/s for CollapseSamples
	// consecutive samples raises throughput_collapse; above CollapseClearRatio clears it.
	CollapseRatio, CollapseClearRatio float64
	CollapseSamples                   int

	// StaleAfter: a series silent this long while its unit still logs is stale (live only).
	StaleAfter time.Duration
	// ExpireAfter: a series silent this long leaves the exported gauges (expire.go; live only).
	// Negative disables expiry; zero means DefaultExpireAfter.
	ExpireAfter time.Duration

	// DriftLines: format_drift looks at the last DriftLines marker lines of a unit and raises
	// when at least DriftFraction of them were malformed.
	DriftLines    int
	DriftFraction float64

	// ForecastContexts are the reference contexts of the forecast (tokens).
	ForecastContexts []int
	// ResidualDegraded: a residual below −ResidualDegraded (log ratio) makes a sustained drop
	// "degraded" rather than "expected".
	ResidualDegraded float64
	// PositionCost is the cost of one more draft position, as a share of a verify step
	// (drafting it and verifying it): the per-position advice drops a position that adds
	// fewer tokens per step than PositionCost × commit length (docs/report.md).
	PositionCost float64
	// SpecOffAfter: speculation off this long at a batch size the engine drafted at before
	// raises speculation_disabled; it also spaces the speculation switch events.
	SpecOffAfter time.Duration
}

// Defaults. The sequential-test parameters follow from the false-alarm budget written in
// model/internal/estimate/sequential.go (at most one false alarm per series per week at one
// sample per 2 s): k = 1σ, h = 5σ gives ARL0 ≈ 1.1·10^5 one-minute windows (11 weeks) and detects a 10 %
// acceptance drop in about 2 windows at the nominal window noise, 6 at twice that; a 30 % drop
// in 1. k = 1 ignores the between-window swings of text-dependent acceptance (hard reasoning is
// about one σ below the mean on a mixed workload), which k = 0.5 would accumulate.
const (
	DefaultMaxSeries           = 256
	DefaultDecodeLogInterval   = 40
	DefaultIdleFactor          = 3
	DefaultShortHalfLife       = 2 * time.Minute
	DefaultLongHalfLife        = 2 * time.Hour
	DefaultPositionCost        = 0.03
	DefaultStuckSamples        = 3
	DefaultStuckClear          = 3
	DefaultInconsistentSamples = 2
	DefaultDepthTolerance      = 0.25
	DefaultTPSTolerance        = 0.25
	DefaultWindow              = 30
	DefaultAttributionWindow   = 10
	DefaultDropK               = 1.0
	DefaultDropH               = 5.0
	DefaultDropMinEffect       = 0.03
	DefaultRegressionK         = 1.0
	DefaultRegressionH         = 5.0
	DefaultRegressionMinEffect = 0.08
	DefaultWarmupWindows       = 30
	DefaultCollapseRatio       = 0.5
	DefaultCollapseClearRatio  = 0.8
	DefaultCollapseSamples     = 5
	DefaultStaleAfter          = 5 * time.Minute
	DefaultExpireAfter         = 10 * time.Minute
	DefaultDriftLines          = 100
	DefaultDriftFraction       = 0.2
	DefaultResidualDegraded    = 0.15
	DefaultSpecOffAfter        = 10 * time.Minute
)

// DefaultForecastContexts answer "what will a 4k, 32k, 128k request get here?".
var DefaultForecastContexts = []int{4096, 32768, 131072}

// SetDefaults gives every unset (≤ 0) setting its default.
func (o *Options) SetDefaults() {
	defaults.Set(&o.MaxSeries, DefaultMaxSeries)
	defaults.Set(&o.DecodeLogInterval, DefaultDecodeLogInterval)
	defaults.Set(&o.IdleFactor, DefaultIdleFactor)
	defaults.Set(&o.ShortHalfLife, DefaultShortHalfLife)
	defaults.Set(&o.LongHalfLife, DefaultLongHalfLife)
	defaults.Set(&o.PositionCost, DefaultPositionCost)
	defaults.Set(&o.SpecOffAfter, DefaultSpecOffAfter)
	defaults.Set(&o.StuckSamples, DefaultStuckSamples)
	defaults.Set(&o.StuckClear, DefaultStuckClear)
	defaults.Set(&o.InconsistentSamples, DefaultInconsistentSamples)
	defaults.Set(&o.DepthTolerance, DefaultDepthTolerance)
	defaults.Set(&o.TPSTolerance, DefaultTPSTolerance)
	defaults.Set(&o.Window, DefaultWindow)
	defaults.Set(&o.AttributionWindow, DefaultAttributionWindow)
	defaults.Set(&o.DropK, DefaultDropK)
	defaults.Set(&o.DropH, DefaultDropH)
	defaults.Set(&o.DropMinEffect, DefaultDropMinEffect)
	defaults.Set(&o.RegressionK, DefaultRegressionK)
	defaults.Set(&o.RegressionH, DefaultRegressionH)
	defaults.Set(&o.RegressionMinEffect, DefaultRegressionMinEffect)
	defaults.Set(&o.WarmupWindows, DefaultWarmupWindows)
	o.SlowDrift.PerValue = 1 // it is fed samples, in blocks of five drop windows' worth
	defaults.Set(&o.SlowDrift.Block, 5*o.Window)
	defaults.Set(&o.CollapseRatio, DefaultCollapseRatio)
	defaults.Set(&o.CollapseClearRatio, DefaultCollapseClearRatio)
	defaults.Set(&o.CollapseSamples, DefaultCollapseSamples)
	defaults.Set(&o.StaleAfter, DefaultStaleAfter)
	if o.ExpireAfter == 0 {
		o.ExpireAfter = DefaultExpireAfter
	}
	defaults.Set(&o.DriftLines, DefaultDriftLines)
	defaults.Set(&o.DriftFraction, DefaultDriftFraction)
	defaults.Set(&o.ResidualDegraded, DefaultResidualDegraded)
	if len(o.ForecastContexts) == 0 {
		o.ForecastContexts = DefaultForecastContexts
	}
}
