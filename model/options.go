package model

import "github.com/specwatch/specwatch/model/options"

// Options configure a Set: model/options, the one place for the model's defaults.
type Options = options.Options

// The defaults, as model/options has them.
const (
	DefaultAttributionWindow   = options.DefaultAttributionWindow
	DefaultCollapseClearRatio  = options.DefaultCollapseClearRatio
	DefaultCollapseRatio       = options.DefaultCollapseRatio
	DefaultCollapseSamples     = options.DefaultCollapseSamples
	DefaultDecodeLogInterval   = options.DefaultDecodeLogInterval
	DefaultDepthTolerance      = options.DefaultDepthTolerance
	DefaultDriftFraction       = options.DefaultDriftFraction
	DefaultDriftLines          = options.DefaultDriftLines
	DefaultDropH               = options.DefaultDropH
	DefaultDropK               = options.DefaultDropK
	DefaultDropMinEffect       = options.DefaultDropMinEffect
	DefaultExpireAfter         = options.DefaultExpireAfter
	DefaultIdleFactor          = options.DefaultIdleFactor
	DefaultInconsistentSamples = options.DefaultInconsistentSamples
	DefaultLongHalfLife        = options.DefaultLongHalfLife
	DefaultMaxSeries           = options.DefaultMaxSeries
	DefaultPositionCost        = options.DefaultPositionCost
	DefaultRegressionH         = options.DefaultRegressionH
	DefaultRegressionK         = options.DefaultRegressionK
	DefaultRegressionMinEffect = options.DefaultRegressionMinEffect
	DefaultResidualDegraded    = options.DefaultResidualDegraded
	DefaultShortHalfLife       = options.DefaultShortHalfLife
	DefaultSpecOffAfter        = options.DefaultSpecOffAfter
	DefaultStaleAfter          = options.DefaultStaleAfter
	DefaultStuckClear          = options.DefaultStuckClear
	DefaultStuckSamples        = options.DefaultStuckSamples
	DefaultTPSTolerance        = options.DefaultTPSTolerance
	DefaultWarmupWindows       = options.DefaultWarmupWindows
	DefaultWindow              = options.DefaultWindow
)

// DefaultForecastContexts answer "what will a 4k, 32k, 128k request get here?".
var DefaultForecastContexts = options.DefaultForecastContexts
