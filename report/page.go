package report

import (
	"bufio"
	"cmp"
	"html/template"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/report/numfmt"
	"github.com/specwatch/specwatch/report/svgplot"
	"github.com/specwatch/specwatch/report/words"
)

// PageOptions set what the HTML page says about itself. The same page is the file written by
// `specwatch analyze --format html` and the daemon's live status page at /, which differ only
// in Refresh.
type PageOptions struct {
	Title   string        // e.g. "specwatch — analyze demo"; empty: "specwatch report"
	Refresh time.Duration // 0: none; >0: <meta http-equiv="refresh"> (live status page)
	Now     time.Time     // shown as "generated at"; injected so output is reproducible
	Version string
	// Color is the text format's TextOptions.Color where one call writes any format
	// (analyze.Write); the page ignores it. The caller decides (UseColor).
	Color bool
}

// WritePage writes a self-contained HTML report of r: input accounting, active anomalies, and
// per series its verdict, key figures and four inline SVG plots. It needs no network, no
// scripts and no external assets, so the file opens offline and renders fast.
//
// plots are matched to r.Series by Labels, not by index: a series without plot data gets
// "not enough data yet" placeholders instead of someone else's plots.
//
// Bidirectional controls from any string (labels, details, the title) are shown as their code
// points, "[U+202E]", never passed to the browser (page_bidi.go).
func WritePage(w io.Writer, r model.Report, plots []model.SeriesPlot, opts PageOptions) error {
	words.Fill(&r)
	f := &bidiFilter{w: w}
	bw := bufio.NewWriterSize(f, 64<<10)
	v := buildPage(r, plots, opts)
	if err := pageTemplate.Execute(bw, &v); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.flush()
}

// pageView is everything the template prints, formatted: the template only lays it out.
type pageView struct {
	Title, Version, Generated, RefreshText string
	RefreshMeta                            template.HTML
	CSS                                    template.CSS
	Input                                  []tile
	Active, Past                           []anomalyRow
	PastMore                               int          // earlier episodes not listed
	Series                                 []seriesView // the index and the cards, without plots
	plots                                  []*model.SeriesPlot
	reports                                []model.SeriesReport
}

// Cards yields each series' card with its plots, drawn just before the template writes it, so
// that a render holds one card's SVGs at a time rather than the whole page's (several MB at
// 256 series).
func (v *pageView) Cards() iter.Seq[seriesView] {
	return func(yield func(seriesView) bool) {
		for i, sv := range v.Series {
			addPlots(&sv, &v.reports[i], v.plots[i])
			if !yield(sv) {
				return
			}
		}
	}
}

// tile is one labelled figure; Class "bad" draws attention to it.
type tile struct{ Label, Value, Sub, Class string }

// anomalyRow is one episode in the overview or a card.
type anomalyRow struct {
	Kind, Severity, Series, Anchor, When, Detail string
	sev                                          int
	start                                        time.Time
}

func buildPage(r model.Report, plots []model.SeriesPlot, opts PageOptions) pageView {
	v := pageView{Title: opts.Title, Version: opts.Version, CSS: template.CSS(pageCSS)}
	if v.Title == "" {
		v.Title = "specwatch report"
	}
	if !opts.Now.IsZero() {
		v.Generated = opts.Now.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if opts.Refresh > 0 {
		sec := max(1, int64(math.Ceil(opts.Refresh.Seconds())))
		v.RefreshMeta = template.HTML(`<meta http-equiv="refresh" content="` + strconv.FormatInt(sec, 10) + `">`)
		v.RefreshText = numfmt.Dur(time.Duration(sec) * time.Second)
	}
	in := r.Input
	v.Input = []tile{
		{Label: "lines", Value: numfmt.Thousands(in.Lines), Sub: "read"},
		{Label: "samples", Value: numfmt.Thousands(in.Samples), Sub: "engine statistics parsed"},
		{Label: "ignored", Value: numfmt.Thousands(in.Ignored), Sub: "not engine statistics"},
		{Label: "malformed", Value: numfmt.Thousands(in.Malformed), Sub: "engine marker, did not parse", Class: badIf(in.Malformed > 0)},
		{Label: "unreadable", Value: numfmt.Thousands(in.Unreadable), Sub: "records not decodable", Class: badIf(in.Unreadable > 0)},
	}
	if in.OutOfRange > 0 {
		v.Input = append(v.Input, tile{Label: "out of range", Value: numfmt.Thousands(in.OutOfRange), Sub: "outside --since/--until"})
	}
	byLabels := make(map[model.Labels]*model.SeriesPlot, len(plots))
	for i := range plots {
		byLabels[plots[i].Labels] = &plots[i]
	}
	v.reports = r.Series
	for i := range r.Series {
		sr := &r.Series[i]
		anchor := "s" + strconv.Itoa(i+1)
		sv := buildSeries(sr, anchor)
		v.plots = append(v.plots, byLabels[sr.Labels])
		for _, a := range sr.Anomalies {
			row := anomalyOverview(a, sr, anchor)
			if a.End == nil {
				v.Active = append(v.Active, row)
			} else {
				v.Past = append(v.Past, row)
			}
		}
		v.Series = append(v.Series, sv)
	}
	anomalousFirst(&v)
	// The most severe first, then the oldest: what to look at before anything else.
	order := func(a, b anomalyRow) int {
		return cmp.Or(cmp.Compare(a.sev, b.sev), a.start.Compare(b.start), cmp.Compare(a.Anchor, b.Anchor))
	}
	slices.SortStableFunc(v.Active, order)
	slices.SortStableFunc(v.Past, func(a, b anomalyRow) int { return a.start.Compare(b.start) })
	v.Past, v.PastMore = latest(v.Past)
	return v
}

// anomalousFirst puts the ANOMALOUS series first in the index and the cards, each group in the
// report's order. Anchors stay the report's (s1 is the report's first series), so links from
// the anomaly lists and from outside keep pointing at the same card.
func anomalousFirst(v *pageView) {
	idx := make([]int, len(v.Series))
	for i := range idx {
		idx[i] = i
	}
	first := func(i int) int {
		if v.reports[i].Verdict == "anomalous" {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(first(a), first(b)) })
	series, plots, reports := make([]seriesView, len(idx)), make([]*model.SeriesPlot, len(idx)), make([]model.SeriesReport, len(idx))
	for to, from := range idx {
		series[to], plots[to], reports[to] = v.Series[from], v.plots[from], v.reports[from]
	}
	v.Series, v.plots, v.reports = series, plots, reports
}

// maxListed bounds a list of ended episodes: a flapping detector on a live page must not bury
// the plots. The cards list every series' own episodes up to the same bound.
const maxListed = 20

// latest keeps the maxListed most recent rows of a list in time order, and says how many it
// left out.
func latest(rows []anomalyRow) ([]anomalyRow, int) {
	if len(rows) <= maxListed {
		return rows, 0
	}
	return rows[len(rows)-maxListed:], len(rows) - maxListed
}

func badIf(b bool) string {
	if b {
		return "bad"
	}
	return ""
}

// anomalyOverview is an episode as listed at the top of the page, naming its series.
func anomalyOverview(a model.AnomalyJSON, sr *model.SeriesReport, anchor string) anomalyRow {
	row := anomalyRow{Kind: a.Kind, Severity: svgplot.SeverityClass(a.Severity), Series: seriesName(sr.Labels),
		Anchor: anchor, Detail: a.Detail, start: a.Start}
	row.sev = map[string]int{"critical": 0, "warning": 1, "info": 2}[row.Severity]
	if a.End == nil {
		row.When = "since " + numfmt.Time(a.Start)
		if d := sr.Last.Sub(a.Start); d > 0 {
			row.When += " · " + numfmt.Dur(d) + " to the last sample"
		}
	} else {
		row.When = numfmt.Time(a.Start) + " → " + numfmt.Clock(*a.End, a.Start) + " · " + numfmt.Dur(a.End.Sub(a.Start))
	}
	return row
}

// seriesName is the one-line name of a series: engine, host, unit, rank.
func seriesName(l model.Labels) string {
	s := l.Engine
	for _, name := range model.LabelNames[1:] {
		if p := l.Value(name); p != "" {
			if s != "" {
				s += " · "
			}
			s += p
		}
	}
	if s == "" {
		return "(unlabelled series)"
	}
	return s
}
