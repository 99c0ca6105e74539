package exporter

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// What the black-box tests (package exporter_test) look at inside.

var ErrLabel = errLabel

// NewCollector is the per-series collector NewMetrics registers, alone.
func NewCollector(src Source, maxSeries int) prometheus.Collector {
	return &collector{src: src, d: newDescs(), maxSeries: maxSeries, dropped: new(atomic.Int64)}
}

// CachedObservers is how many series' step histogram children m caches.
func (m *Metrics) CachedObservers() int { return len(m.observers) }
