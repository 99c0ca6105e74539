package svgplot

import (
	"html/template"
	"math"
	"sort"
	"strconv"

	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/report/numfmt"
)

// RecencyBins is how many shades the step-vs-context scatter uses for age. Points are grouped
// by shade into one path of round dots each (see dots: a day of <circle> elements doubled the
// page's first render), so the colour is set once per group, and the newest group is drawn
// last (on top), where the eye looks for the current state.
const RecencyBins = 6

// Plot sizes in CSS pixels at 1x. The time plots share width and margins so that anomaly spans
// and the two time axes line up when read down a card.
const (
	halfW, wideW      = 580, 1180
	plotLeft, plotRgt = 56, 18
)

// KVUnit reports whether the context axis is vLLM's KV cache usage in percent.
func KVUnit(unit string) bool { return unit == "kv_percent" }

// Scatter draws step time against context: the data the step model is fitted on, with the
// fitted line over the data's range, points shaded by age (a drift shows as new points leaving
// the line) and after-idle artefacts hollow, since the model ignores them.
func Scatter(p *schema.SeriesPlot, label string) Drawn {
	var xs, ys extent
	var steps []float64
	for i := range p.Points {
		q := &p.Points[i]
		if q.Idle || !numfmt.Finite(float64(q.Ctx)) || !(q.Step > 0) || !numfmt.Finite(float64(q.Step)) {
			continue
		}
		xs.add(float64(q.Ctx))
		steps = append(steps, 1000*float64(q.Step))
	}
	if len(steps) == 0 {
		return Drawn{}
	}
	ymax := robustMax(steps)
	ys.add(0)
	ys.add(ymax)
	fit := p.FitOK && numfmt.Finite(p.FitA) && numfmt.Finite(p.FitB)
	if fit {
		ys.add(1000 * (p.FitA + p.FitB*xs.lo))
		ys.add(1000 * (p.FitA + p.FitB*xs.hi))
	}
	f := newFrame(halfW, 340, plotLeft, plotRgt, 30, 42)
	xt, x0, x1 := niceTicks(math.Min(0, xs.lo), xs.hi, 6)
	yt, y0, y1 := niceTicks(ys.lo, ys.hi, 5)
	f.setX(x0, x1)
	f.setY(y0, y1)
	var s svgBuf
	f.open(&s, "scatter", "step time against context, "+label)
	f.yAxis(&s, yt, "step time (ms)")
	xTitle := "context (tokens)"
	if KVUnit(p.ContextUnit) {
		xTitle = "KV cache in use (%)"
	}
	f.xAxis(&s, xt, xTitle, true)

	var bins [RecencyBins]dots
	var idle svgBuf
	var off polyline
	var d Drawn
	t0, t1 := p.Points[0].T, p.Points[len(p.Points)-1].T
	for i := range p.Points {
		q := &p.Points[i]
		x, y := float64(q.Ctx), 1000*float64(q.Step)
		if !numfmt.Finite(x) || !numfmt.Finite(y) || y < 0 {
			continue
		}
		// After-idle contexts may lie outside the fitted range: they sit on the edge.
		px, py := f.x.clamp(f.x.at(x)), f.y.at(y)
		if py < f.y1() && q.Idle { // an artefact off the top: counted in the legend only
			d.IdleOff++
			continue
		}
		if py < f.y1() { // off the top: a marker on the edge, not a squashed axis
			off.to(px, f.y1())
			off.d.raw("l3 6h-6z")
			off.lift()
			d.OffScale++
			continue
		}
		if q.Idle {
			idle.circle(px, py, 2.5)
			continue
		}
		bins[recencyBin(q.T, t0, t1)].at(px, py)
	}
	s.str(`<g class="idle">` + idle.b.String() + `</g>`)
	for i := range bins {
		bins[i].write(&s, "dot rc"+strconv.Itoa(i))
	}
	off.write(&s, "off")
	if fit {
		s.line(f.x.at(xs.lo), f.y.clamp(f.y.at(1000*(p.FitA+p.FitB*xs.lo))),
			f.x.at(xs.hi), f.y.clamp(f.y.at(1000*(p.FitA+p.FitB*xs.hi))), "fit")
	} else {
		s.text(f.x1()-4, f.y1()+14, "note end", "no step model yet: not enough samples")
	}
	f.close(&s)
	d.SVG = s.html()
	return d
}

// Drawn is one rendered plot: empty SVG means there was nothing to draw, and the page says
// "not enough data yet" instead. OffScale counts points drawn as markers on the top edge,
// IdleOff the after-idle artefacts above the plot, left out (their step time is the idle time).
type Drawn struct {
	SVG               template.HTML
	OffScale, IdleOff int
}

// recencyBin maps a time to its age shade: 0 oldest … RecencyBins-1 newest.
func recencyBin(t, t0, t1 int64) int {
	if t1 <= t0 {
		return RecencyBins - 1
	}
	b := int(float64(t-t0) / float64(t1-t0) * RecencyBins)
	return max(0, min(RecencyBins-1, b))
}

// robustMax is the top of a y axis that a few wild samples should not flatten: the maximum,
// unless it is more than 1.2 × the 99th percentile, then that (the points above are drawn on
// the top edge, and the legend counts them).
func robustMax(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	hi := s[len(s)-1]
	if len(s) < 20 {
		return hi
	}
	return math.Min(hi, 1.2*s[(len(s)-1)*99/100])
}
