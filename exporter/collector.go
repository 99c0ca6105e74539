package exporter

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/specwatch/specwatch/pipeline"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/specwatch/specwatch/model"
)

// collector turns one Source.Snapshot per scrape into metrics. The pipeline's lock is held
// only inside Snapshot and Status (a copy of a few hundred bytes per series); encoding and
// writing to the client happen after Collect has returned, with no lock held.
type collector struct {
	src       Source
	d         *descs
	maxSeries int
	dropped   *atomic.Int64 // step observations dropped by Metrics' cap

	// mu guards buf, the snapshot buffer reused across scrapes, and pairs, the label pairs
	// cached by series ID; concurrent scrapes (Prometheus and a push, say) take turns
	// copying, which costs microseconds.
	mu    sync.Mutex
	buf   []model.SeriesSnapshot
	pairs []*seriesPairs
}

// Describe sends every descriptor: the collector is checked, so the registry verifies names
// and label sets against them on each scrape.
func (c *collector) Describe(ch chan<- *prometheus.Desc) { c.d.describe(ch) }

// Collect emits the process-level metrics and then every series' metrics.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	st := c.src.Status()
	c.process(ch, &st)

	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf = c.src.Snapshot(c.buf)
	// One slab per scrape: the registry may still be reading the samples of this scrape when
	// the next one starts, so they are never reused.
	slab := make([]sample, 0, min(len(c.buf), c.maxSeries)*maxPerSeries)
	for i := range c.buf {
		if s := &c.buf[i]; s.ID >= 0 && s.ID < c.maxSeries {
			slab = c.series(ch, s, c.pairsOf(s), slab)
		}
	}
}

// pairsOf returns the cached label pairs of s's series.
func (c *collector) pairsOf(s *model.SeriesSnapshot) *seriesPairs {
	for len(c.pairs) <= s.ID {
		c.pairs = append(c.pairs, nil)
	}
	if p := c.pairs[s.ID]; p != nil && p.labels == s.Labels {
		return p
	}
	p := newSeriesPairs(s.Labels)
	c.pairs[s.ID] = p
	return p
}

func (c *collector) process(ch chan<- prometheus.Metric, st *pipeline.Status) {
	d := c.d
	if st.HasJournalLag {
		ch <- prometheus.MustNewConstMetric(d.journalLag, prometheus.GaugeValue, st.JournalLag.Seconds())
	}
	ch <- prometheus.MustNewConstMetric(d.lines, prometheus.CounterValue, float64(st.Input.Samples), "matched")
	ch <- prometheus.MustNewConstMetric(d.lines, prometheus.CounterValue, float64(st.Input.Ignored), "ignored")
	ch <- prometheus.MustNewConstMetric(d.lines, prometheus.CounterValue, float64(st.Input.Malformed), "malformed")
	ch <- prometheus.MustNewConstMetric(d.dropped, prometheus.CounterValue, float64(st.Overflow+c.dropped.Load()))
	ch <- prometheus.MustNewConstMetric(d.cursorFailures, prometheus.CounterValue, float64(st.CursorSaveFailures))
}

// series emits one series' metrics into slab. Figures the series never had (Has* false), and
// non-finite ones, are left out: an absent gauge is absent, not zero, and NaN would silently
// defeat every comparison in an alert rule.
func (c *collector) series(ch chan<- prometheus.Metric, s *model.SeriesSnapshot, p *seriesPairs, slab []sample) []sample {
	d := c.d
	emit := func(desc *prometheus.Desc, typ prometheus.ValueType, v float64, ok bool, labels []*dto.LabelPair) {
		if ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			slab = append(slab, sample{desc: desc, labels: labels, value: v, typ: typ})
			ch <- &slab[len(slab)-1]
		}
	}
	gauge := func(desc *prometheus.Desc, v float64, ok bool) { emit(desc, prometheus.GaugeValue, v, ok, p.base) }

	// A quiet series' figures are the past (model.ExpireAfter without a sample): they leave,
	// so sums over the fleet lose a stopped engine; a gone one (its unit silent too) also drops
	// its anomaly gauges and last-sample stamp. Counters stay: they never go back.
	if !s.Quiet {
		c.figures(s, p, emit)
	}
	if !s.Gone {
		gauge(d.lastSample, float64(s.LastSample)/1e9, s.LastSample != 0)
		gauge(d.clockOffset, s.ClockOffset.Seconds(), s.HasClockOffset)
	}
	for k := range model.NumAnomalyKinds {
		emit(d.anomalyActive, prometheus.GaugeValue, one(s.Active[k]), !s.Gone, p.anomaly[k])
		emit(d.anomalies, prometheus.CounterValue, float64(s.Raised[k]), true, p.anomaly[k])
	}
	for i, r := range s.Ready {
		emit(d.detectorArmed, prometheus.GaugeValue, one(r.Armed), !s.Gone, p.ready[i])
		emit(d.detectorWarmup, prometheus.GaugeValue, float64(r.Need), !s.Gone, p.ready[i])
	}
	// Kind 0 ("none") is never applied; the four real kinds are always exported so that rate()
	// sees a series from its first sample.
	for k := 1; k < len(s.Samples); k++ {
		emit(d.samples, prometheus.CounterValue, float64(s.Samples[k]), true, p.kinds[k])
	}
	emit(d.committedTokens, prometheus.CounterValue, s.CommittedTokens, s.HasCommitCounts, p.base)
	emit(d.verifySteps, prometheus.CounterValue, s.VerifySteps, s.HasCommitCounts, p.base)
	return slab
}

// figures emits the gauges that describe a series' present: its latest figures, the fit, the
// forecast and the attribution.
func (c *collector) figures(s *model.SeriesSnapshot, p *seriesPairs, emit func(*prometheus.Desc, prometheus.ValueType, float64, bool, []*dto.LabelPair)) {
	d := c.d
	gauge := func(desc *prometheus.Desc, v float64, ok bool) { emit(desc, prometheus.GaugeValue, v, ok, p.base) }
	gauge(d.commit, s.Commit, s.HasCommit)
	gauge(d.acceptRate, s.AcceptRate, s.HasAcceptRate)
	gauge(d.depth, s.AcceptedDepth, s.HasDepth)
	// vLLM's context is KV cache usage in percent: its own metrics, in base units (a ratio,
	// and the slope per full cache), so that no axis or sum mixes percent with tokens.
	ctxDesc, ctx, slopeDesc, slope := d.context, s.Context, d.fitB, s.FitB
	if s.KVContext {
		ctxDesc, ctx, slopeDesc, slope = d.kvUsage, s.Context/100, d.fitKV, s.FitB*100
	}
	gauge(ctxDesc, ctx, s.HasContext)
	gauge(d.running, s.Running, s.HasRunning)
	gauge(d.step, s.Step, s.HasStep)
	gauge(d.tps, s.TPS, s.HasStep)
	gauge(d.fitA, s.FitA, s.FitOK)
	gauge(slopeDesc, slope, s.FitOK)
	gauge(d.predTPS, s.PredTPS, s.HasPred)

	for i := range min(s.NForecast, len(s.Forecast)) {
		f := s.Forecast[i]
		emit(d.forecast, prometheus.GaugeValue, f.TPS, !forecastSeen(s, i), p.forContext(f.Context))
	}
	for i := range min(s.NPos, len(s.PerPos)) {
		emit(d.acceptByPos, prometheus.GaugeValue, s.PerPos[i], true, p.forPosition(i))
	}
	attr := [3]float64{s.AttrAcceptance, s.AttrContext, s.AttrResidual}
	for i, v := range attr {
		emit(d.attribution, prometheus.GaugeValue, v, s.AttrOK, p.factor[i])
	}
}

// forecastSeen reports whether the forecast's context i repeats an earlier one (a config list
// with a duplicate), which would make the scrape fail on a duplicate series.
func forecastSeen(s *model.SeriesSnapshot, i int) bool {
	for j := range i {
		if s.Forecast[j].Context == s.Forecast[i].Context {
			return true
		}
	}
	return false
}

// one is a boolean gauge's value.
func one(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
