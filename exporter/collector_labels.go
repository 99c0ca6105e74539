package exporter

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/model/rank"
	"github.com/specwatch/specwatch/model/schema"
)

// sample is one per-series metric of a scrape. Scrapes allocate them in one slab and point
// them at label pairs cached per series: prometheus.MustNewConstMetric would build, validate
// and sort fresh label pairs for each of the ~35 metrics of every series on every scrape,
// which was two thirds of a scrape's allocations.
type sample struct {
	desc   *prometheus.Desc
	labels []*dto.LabelPair
	value  float64
	typ    prometheus.ValueType
}

func (s *sample) Desc() *prometheus.Desc { return s.desc }

// Write shares labels and value with out: client_golang treats a written metric's label pairs
// as immutable (its own constMetric does the same), and the sample is never reused.
func (s *sample) Write(out *dto.Metric) error {
	out.Label = s.labels
	if s.typ == prometheus.CounterValue {
		out.Counter = &dto.Counter{Value: &s.value}
	} else {
		out.Gauge = &dto.Gauge{Value: &s.value}
	}
	return nil
}

var snapshotShape model.SeriesSnapshot

// maxPerSeries bounds the metrics one series emits: 11 gauges, the 2 commit counters, the
// forecast, 3 attribution factors, 2 per anomaly kind, 2 per warm-up detector and the sample
// kinds. It sizes the per-scrape slab.
const maxPerSeries = 11 + 2 + len(snapshotShape.Forecast) + len(snapshotShape.PerPos) + 3 + 2*int(model.NumAnomalyKinds) +
	2*model.NumReadiness + len(snapshotShape.Samples)

// seriesPairs are one series' label pairs, sorted by name as client_golang wants them, built
// when the series is first scraped (and again if the labels at its ID change) and shared
// read-only by every scrape after.
type seriesPairs struct {
	labels  model.Labels // as the model has them, to detect a change
	base    []*dto.LabelPair
	factor  [3][]*dto.LabelPair // acceptance, context, residual
	anomaly [model.NumAnomalyKinds][]*dto.LabelPair
	kinds   [len(snapshotShape.Samples)][]*dto.LabelPair
	ctx     []ctxPairs
	pos     [len(snapshotShape.PerPos)][]*dto.LabelPair
	ready   [model.NumReadiness][]*dto.LabelPair
}

// forPosition returns the pairs with label position (1-based), built on first use.
func (p *seriesPairs) forPosition(i int) []*dto.LabelPair {
	if p.pos[i] == nil {
		p.pos[i] = p.with("position", strconv.Itoa(i+1))
	}
	return p.pos[i]
}

type ctxPairs struct {
	context int
	pairs   []*dto.LabelPair
}

var factorNames = [3]string{"acceptance", "context", "residual"}

func newSeriesPairs(l model.Labels) *seriesPairs {
	v := validLabels(l)
	r := rank.Split(v.Rank)
	p := &seriesPairs{labels: l, base: []*dto.LabelPair{
		pair("attn_cp", r.AttnCP), pair("container", v.Container), pair("dp", r.DP), pair("engine", v.Engine),
		pair("ep", r.EP), pair("host", v.Host), pair("namespace", v.Namespace), pair("pod", v.Pod),
		pair("pp", r.PP), pair("rank", v.Rank), pair("tp", r.TP), pair("unit", v.Unit)}}
	for i, f := range factorNames {
		p.factor[i] = p.with("factor", f)
	}
	for k := range model.NumAnomalyKinds {
		p.anomaly[k] = p.with("kind", k.String())
	}
	for k := range p.kinds {
		p.kinds[k] = p.with("kind", schema.SampleKindName(k))
	}
	for i, k := range schema.ReadinessDetectors {
		p.ready[i] = p.with("detector", k.String())
	}
	return p
}

// forContext returns the pairs with label context, built on first use (a handful of
// configured contexts per series).
func (p *seriesPairs) forContext(ctx int) []*dto.LabelPair {
	for _, c := range p.ctx {
		if c.context == ctx {
			return c.pairs
		}
	}
	ps := p.with("context", strconv.Itoa(ctx))
	p.ctx = append(p.ctx, ctxPairs{ctx, ps})
	return ps
}

// with returns base plus one label, sorted by name; len == cap, so that an append by a reader
// (the push adds its extra labels) copies instead of writing into the shared array.
func (p *seriesPairs) with(name, value string) []*dto.LabelPair {
	ps := append(slices.Clip(p.base), pair(name, value))
	slices.SortFunc(ps, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
	return slices.Clip(ps)
}

func pair(name, value string) *dto.LabelPair { return &dto.LabelPair{Name: &name, Value: &value} }

// validLabels replaces invalid UTF-8 and NUL bytes in label values with U+FFFD (host names and
// units come from log records, which may carry anything): client_golang rejects invalid UTF-8,
// and one bad series must not fail the whole scrape; a NUL is valid UTF-8 and the text format
// would pass it through raw, where C-string parsers and terminals cut or hide the value.
// docs/metrics.md states the rule.
func validLabels(l model.Labels) model.Labels {
	fix := func(s *string) {
		if !utf8.ValidString(*s) {
			*s = strings.ToValidUTF8(*s, "\uFFFD")
		}
		if strings.IndexByte(*s, 0) >= 0 {
			*s = strings.ReplaceAll(*s, "\x00", "\uFFFD")
		}
	}
	fix(&l.Host)
	fix(&l.Unit)
	fix(&l.Engine)
	fix(&l.Rank)
	fix(&l.Container)
	fix(&l.Namespace)
	fix(&l.Pod)
	return l
}
