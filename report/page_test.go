package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"html"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/report/svgplot"
)

func render(t *testing.T, r model.Report, plots []model.SeriesPlot, opts PageOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := WritePage(&b, r, plots, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var svgRE = regexp.MustCompile(`(?s)<svg .*?</svg>`)

// cards splits the page into the series' sections, in order.
func cards(page string) []string {
	parts := strings.Split(page, `<section class="card `)
	return parts[1:]
}

// svgOf returns the SVG of a card with the given plot class, or "".
func svgOf(card, class string) string {
	for _, s := range svgRE.FindAllString(card, -1) {
		if strings.Contains(s, `class="plot `+class+`"`) {
			return s
		}
	}
	return ""
}

// pathD returns the d attribute of the card SVG's paths with the class.
func pathD(svg, class string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<path class="`+class+`" d="([^"]*)"`).FindAllStringSubmatch(svg, -1) {
		out = append(out, m[1])
	}
	return out
}

// checkXML parses every SVG strictly: hand-built markup must be well-formed whatever the labels.
func checkXML(t *testing.T, page string) {
	t.Helper()
	for i, s := range svgRE.FindAllString(page, -1) {
		d := xml.NewDecoder(strings.NewReader(s))
		for {
			_, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("svg %d is not well-formed XML: %v", i, err)
			}
		}
	}
}

// The synthetic report's counts are known, so the page must draw exactly them.
func TestPageCounts(t *testing.T) {
	r, plots := synth()
	page := render(t, r, plots, synthOpts)
	checkXML(t, page)
	cs := cards(page)
	if len(cs) != 3 {
		t.Fatalf("%d series cards, want 3", len(cs))
	}
	if n := strings.Count(page, "<svg "); n != 8 {
		t.Errorf("%d SVGs, want 4 + 4 + 0", n)
	}
	sg := cs[0]
	for _, class := range []string{"scatter", "attr", "commit", "tps"} {
		if svgOf(sg, class) == "" {
			t.Errorf("SGLang card has no %s plot", class)
		}
	}
	// Scatter: 38 fitted points as dots in recency groups, the on-scale after-idle point a
	// hollow circle, the one at 5 s left out and counted in the legend; one fit line.
	sc := svgOf(sg, "scatter")
	if n := strings.Count(sc, "<circle"); n != 1 {
		t.Errorf("scatter has %d circles, want the 1 after-idle point", n)
	}
	if n := strings.Count(regexp.MustCompile(`(?s)<g class="idle">.*?</g>`).FindString(sc), "<circle"); n != 1 {
		t.Errorf("scatter has %d after-idle circles, want 1", n)
	}
	if d := pathD(sc, "dot rc[0-5]"); len(d) != svgplot.RecencyBins || strings.Count(strings.Join(d, ""), "h0") != 38 {
		t.Errorf("scatter has %d recency groups with %d dots, want %d with 38", len(d),
			strings.Count(strings.Join(d, ""), "h0"), svgplot.RecencyBins)
	}
	if n := len(pathD(sc, "fit")); n != 1 {
		t.Errorf("scatter has %d fit lines, want 1", n)
	}
	if !strings.Contains(sg, "after idle (not fitted; 1 above the plot)") {
		t.Error("scatter legend does not count the after-idle point above the plot")
	}
	// Commit length: 40 dots (after-idle points have a valid commit length), one mean line,
	// two anomaly spans.
	cm := svgOf(sg, "commit")
	if d := pathD(cm, "raw"); len(d) != 1 || strings.Count(d[0], "h0") != 40 {
		t.Errorf("commit dots: %d paths, %d dots, want 1 path of 40", len(d), strings.Count(strings.Join(d, ""), "h0"))
	}
	if d := pathD(cm, "mean"); len(d) != 1 || strings.Count(d[0], "l") != 39 {
		t.Errorf("commit mean: %d paths with %d segments, want one of 39", len(d), strings.Count(strings.Join(d, ""), "l"))
	}
	if n := strings.Count(cm, `<g class="span `); n != 2 {
		t.Errorf("commit plot has %d anomaly spans, want 2", n)
	}
	// tok/s: 38 measured dots (after-idle excluded), the predicted mean from the 5th point on
	// (35 points), 2 after-idle circles.
	tp := svgOf(sg, "tps")
	if d := pathD(tp, "raw"); len(d) != 1 || strings.Count(d[0], "h0") != 38 {
		t.Errorf("tok/s dots: %v", d)
	}
	points := func(d string) int {
		return strings.Count(strings.ToLower(d), "l") + strings.Count(strings.ToLower(d), "m")
	}
	if d := pathD(tp, "pred"); len(d) != 1 || points(d[0]) != 35-2 {
		t.Errorf("predicted tok/s: %d paths, %d points, want 33 (35 warm, minus 2 after idle)", len(d), points(strings.Join(d, "")))
	}
	if n := strings.Count(tp, "<circle"); n != 2 {
		t.Errorf("tok/s plot has %d after-idle circles, want 2", n)
	}
	// Attribution: acceptance, context, residual, total (no batch term for this series).
	if n := strings.Count(svgOf(sg, "attr"), `<g class="bar `); n != 4 {
		t.Errorf("SGLang attribution has %d bars, want 4", n)
	}
	if n := strings.Count(svgOf(cs[1], "attr"), `<g class="bar `); n != 5 {
		t.Errorf("vLLM attribution has %d bars, want 5 (with batch)", n)
	}
	if n := strings.Count(svgOf(cs[1], "scatter"), "h0"); n != 12 {
		t.Errorf("vLLM scatter has %d dots, want its 12 points", n)
	}
	// The anomalies: the active one at the top, the ended one among earlier episodes.
	top := page[:strings.Index(page, `<section class="card `)]
	if a, p := strings.Index(top, "Active anomalies"), strings.Index(top, "Earlier episodes"); a < 0 || p < 0 ||
		!strings.Contains(top[a:p], "acceptance_drop") || !strings.Contains(top[p:], "commit_len_stuck") {
		t.Error("the overview does not list acceptance_drop as active and commit_len_stuck as earlier")
	}
	for _, want := range []string{"1\u2009234", "malformed", "card v-anomalous", "card v-expected", "card v-unknown",
		"18.0 ms + 2.300 ms", "per 1 % KV cache", "30.0 ms + 20.00 ms", "128k", "×0.50"} {
		if !strings.Contains(html.UnescapeString(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// A series without data shows why, not a broken or empty plot.
func TestPageEmptySeries(t *testing.T) {
	r, plots := synth()
	empty := cards(render(t, r, plots, synthOpts))[2]
	if strings.Contains(empty, "<svg") {
		t.Error("the empty series has an SVG")
	}
	if n := strings.Count(empty, "Not enough data yet"); n != 4 {
		t.Errorf("the empty series says 'not enough data yet' %d times, want 4 (one per plot)", n)
	}
	// A report series with no plot data at all, and plots for series not in the report.
	r.Series = r.Series[:1]
	page := render(t, r, []model.SeriesPlot{{Labels: model.Labels{Host: "other"}}}, synthOpts)
	if strings.Contains(page, "<svg") && svgOf(page, "scatter") != "" {
		t.Error("a series without its plot data drew a scatter")
	}
	if !strings.Contains(page, "Not enough data yet") {
		t.Error("a series without plot data does not say so")
	}
	// No series at all.
	page = render(t, model.Report{}, nil, PageOptions{})
	if !strings.Contains(page, "No engine statistics found") || !strings.Contains(page, "specwatch report") {
		t.Error("an empty report does not say that nothing was found")
	}
}

// Labels come from logs: whatever they contain must stay text.
func TestPageHostileLabels(t *testing.T) {
	r, plots := synth()
	evil := model.Labels{Host: `<script>alert(1)</script>`, Unit: `"><img src=x onerror=alert(2)>`,
		Engine: `sglang&<b>`, Rank: `</svg><script>alert(3)</script>`}
	r.Series[0].Labels, plots[2].Labels = evil, evil
	r.Series[0].Verdict = `<b onclick="x">bad</b>`
	r.Series[0].Explanation = `<script>alert(4)</script>`
	bad := model.AnomalyJSON{Kind: `<script>alert(5)</script>`, Severity: `critical" onmouseover="alert(6)`,
		Start: at(time.Minute), Detail: `<iframe src="javascript:alert(7)">`}
	r.Series[0].Anomalies = append(r.Series[0].Anomalies, bad)
	plots[2].Anomalies = append(plots[2].Anomalies, bad)
	page := render(t, r, plots, PageOptions{Title: `<script>alert(8)</script>`, Version: `</title><script>alert(9)</script>`})
	checkXML(t, page)
	low := strings.ToLower(page)
	for _, tag := range []string{"<script", "<img", "<iframe", "<b>", "<b ", `onmouseover="`, `onclick="`} {
		if strings.Contains(low, tag) {
			i := strings.Index(low, tag)
			t.Errorf("hostile input became markup %q: …%s…", tag, page[max(0, i-60):min(len(page), i+60)])
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the hostile host label is not shown as text")
	}
	if n := strings.Count(svgOf(page, "commit"), `<g class="span `); n != 3 {
		t.Errorf("%d spans, want 3 (the hostile one drawn with a fixed class)", n)
	}
}

// NaN and Inf in any field never reach the markup, and degenerate data (one point, all
// contexts equal) draws without dividing by zero.
func TestPageNaN(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	r, plots := synth()
	sr := &r.Series[0]
	sr.StepModel.FixedMS, sr.StepModel.MSPer1kToken, sr.StepModel.R2 = nan, inf, nan
	sr.CommitLen.Mean, sr.TPS.MeasuredMean, sr.TPS.PredictedMean, sr.TPS.MAPE = nan, inf, inf, nan
	sr.Forecast[0].TPS, sr.Forecast[1].StepMS = nan, math.Inf(-1)
	a := sr.Attribution
	a.Acceptance, a.Context, a.Total, a.Baseline.TPS, a.Current.Context = nan, inf, nan, nan, inf
	p := &plots[2]
	p.FitA, p.FitB = nan, inf
	for i := range p.Points {
		q := &p.Points[i]
		switch i % 5 {
		case 0:
			q.Ctx = float32(nan)
		case 1:
			q.Step = float32(math.Inf(1))
		case 2:
			q.Commit, q.TPS = float32(nan), float32(math.Inf(-1))
		case 3:
			q.Pred = float32(inf)
		}
	}
	one := plots[1]
	one.Points = one.Points[:1]
	plots[1] = one
	same := make([]model.HistoryPoint, 30)
	for i := range same {
		same[i] = model.HistoryPoint{T: at(0).UnixNano(), Ctx: 500, Step: 0.05, Commit: 3, TPS: 60, Pred: 60}
	}
	plots[0].Points, plots[0].FitOK, plots[0].FitA, plots[0].FitB = same, true, 0.05, 0
	page := render(t, r, plots, synthOpts)
	checkXML(t, page)
	for _, bad := range []string{"NaN", "Inf"} { // Go's spellings of them
		if i := strings.Index(page, bad); i >= 0 {
			t.Errorf("page contains %q: …%s…", bad, page[max(0, i-80):min(len(page), i+40)])
		}
	}
	if n := strings.Count(svgOf(cards(page)[1], "scatter"), "h0"); n != 1 {
		t.Errorf("a single point draws %d dots", n)
	}
	if n := strings.Count(svgOf(cards(page)[2], "scatter"), "h0"); n != 1 {
		t.Errorf("30 points at one context and one time draw %d dots; one pixel holds one dot", n)
	}
}

// Points out of time order (a clock stepped back) draw as if sorted.
func TestPageUnsorted(t *testing.T) {
	r, plots := synth()
	sorted := render(t, r, plots, synthOpts)
	pts := plots[2].Points
	for i, j := 0, len(pts)-1; i < j; i, j = i+1, j-1 {
		pts[i], pts[j] = pts[j], pts[i]
	}
	if got := render(t, r, plots, synthOpts); got != sorted {
		t.Error("reversed points draw a different page")
	}
}

// A flapping detector lists the latest episodes, and says how many it left out.
func TestPageManyEpisodes(t *testing.T) {
	r, plots := synth()
	var many []model.AnomalyJSON
	for i := range 50 {
		many = append(many, model.AnomalyJSON{Kind: "stale", Severity: "info", Start: at(time.Duration(i) * time.Second),
			End: ptr(at(time.Duration(i)*time.Second + 1)), Detail: "episode " + strconv.Itoa(i)})
	}
	r.Series[1].Anomalies = many
	page := render(t, r, plots, synthOpts)
	if !strings.Contains(page, "… and 31 earlier, listed with their series.") || !strings.Contains(page, "30 earlier episodes not listed") {
		t.Error("the page does not say how many episodes it left out")
	}
	if strings.Contains(page, "episode 29<") || !strings.Contains(page, "episode 30<") || !strings.Contains(page, "episode 49<") {
		t.Error("the page does not list the latest 20 episodes")
	}
	if !strings.Contains(page, `<td class="num">50</td>`) {
		t.Error("the series index does not count all 50 episodes")
	}
}
