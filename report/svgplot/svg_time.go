package svgplot

import (
	"math"
	"sort"
	"time"

	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/report/numfmt"
)

// Trace is one quantity drawn over time: its raw per-line values as dots, and a rolling mean as
// a line. Per-line commit length and tok/s jump around with each request and the engine logs
// nothing between requests; the eye needs the mean to see a level shift, and the dots to see
// that it is real (a line through sparse samples would invent values in the gaps).
type Trace struct {
	Val           func(*schema.HistoryPoint) float64 // NaN: no value at this point
	Raw, Smooth   string                             // path classes; "" draws nothing
	ExcludesIdle  bool                               // after-idle points are artefacts for this quantity
	IncludeDomain bool                               // the y axis covers its raw values
}

// OverTime draws traces against time on the shared time frame, with the anomaly episodes shaded
// behind them and, if idleDots, the after-idle points of the first trace as hollow grey circles.
func OverTime(p *schema.SeriesPlot, label, class, yTitle string, h float64, traces []Trace, idleDots bool) Drawn {
	pts := p.Points
	var ys []float64
	for i := range pts {
		for _, tr := range traces {
			if v := tr.Val(&pts[i]); numfmt.Finite(v) && tr.IncludeDomain && !(pts[i].Idle && tr.ExcludesIdle) {
				ys = append(ys, v)
			}
		}
	}
	if len(ys) == 0 {
		return Drawn{}
	}
	t0, t1 := pts[0].T, pts[len(pts)-1].T
	last := t1 // active anomalies end at the last point
	if t1-t0 < int64(time.Minute) {
		t0, t1 = t0-int64(30*time.Second), t1+int64(30*time.Second)
	}
	f := newFrame(wideW, h, plotLeft, plotRgt, 30, 40)
	f.setX(float64(t0), float64(t1))
	yt, y0, y1 := niceTicks(0, robustMax(ys), 4)
	f.y = linear{y0, y1, f.y0(), f.y1() + 14} // headroom for the anomaly labels
	var s svgBuf
	f.open(&s, class, yTitle+" over time, "+label)
	f.yAxis(&s, yt, yTitle)
	f.xAxis(&s, timeTicks(t0, t1, 10), timeTitle(t0, t1), false)
	spans(&s, &f, p.Anomalies, last)

	gap := gapThreshold(pts)
	win := max((t1-t0)/40, int64(2*time.Minute))
	var d Drawn
	// Raw dots first, then the means in reverse, so the first trace's mean ends on top: the
	// predicted tok/s is a wide pale band under the measured line, which reads as "inside
	// the model's expectation" where they agree.
	ts, vs := make([][]int64, len(traces)), make([][]float64, len(traces))
	for k, tr := range traces {
		var raw dots
		for i := range pts {
			q := &pts[i]
			v := tr.Val(q)
			if !numfmt.Finite(v) || (q.Idle && tr.ExcludesIdle) {
				continue
			}
			y := f.y.at(v)
			if y < f.y.r1 && tr.Raw != "" {
				d.OffScale++
			}
			raw.at(f.x.at(float64(q.T)), f.y.clamp(y))
			ts[k], vs[k] = append(ts[k], q.T), append(vs[k], v)
		}
		if tr.Raw != "" {
			raw.write(&s, tr.Raw)
		}
	}
	for k := len(traces) - 1; k >= 0; k-- {
		if traces[k].Smooth == "" {
			continue
		}
		var sm polyline
		t := ts[k]
		m := rolling(t, vs[k], win, max(gap, win))
		for i := range m {
			if i > 0 && t[i]-t[i-1] > max(gap, win) {
				sm.lift()
			}
			sm.to(f.x.at(float64(t[i])), f.y.clamp(f.y.at(m[i])))
		}
		sm.write(&s, traces[k].Smooth)
	}
	if idleDots {
		s.str(`<g class="idle">`)
		for i := range pts {
			if v := traces[0].Val(&pts[i]); pts[i].Idle && numfmt.Finite(v) {
				y := f.y.at(v)
				if y < f.y.r1 {
					d.OffScale++
				}
				s.circle(f.x.at(float64(pts[i].T)), f.y.clamp(y), 2.5)
			}
		}
		s.str(`</g>`)
	}
	f.close(&s)
	d.SVG = s.html()
	return d
}

// timeTitle names the time axis with the date(s) it spans; tick labels carry only clock times.
func timeTitle(t0, t1 int64) string {
	a, b := time.Unix(0, t0).UTC().Format(time.DateOnly), time.Unix(0, t1).UTC().Format(time.DateOnly)
	if a == b {
		return "time (UTC), " + a
	}
	return "time (UTC), " + a + " → " + b
}

// spans shades each anomaly episode from start to end (or to the last point while active),
// coloured by severity, with its kind written at the top; a label that would collide with the
// previous one drops to a second row, and after that is left to the tooltip.
func spans(s *svgBuf, f *frame, as []schema.AnomalyJSON, last int64) {
	var rowEnd [2]float64
	for i := range rowEnd {
		rowEnd[i] = math.Inf(-1)
	}
	for _, a := range as {
		end := last
		if a.End != nil {
			end = a.End.UnixNano()
		}
		x0 := f.x.clamp(f.x.at(float64(a.Start.UnixNano())))
		x1 := f.x.clamp(f.x.at(float64(end)))
		if x1-x0 < 2 {
			x1 = x0 + 2
		}
		sev := SeverityClass(a.Severity)
		s.str(`<g class="span ` + sev + `"><title>`)
		s.esc(a.Severity + " " + a.Kind + ": " + a.Detail)
		s.str(`</title>`)
		s.rect(x0, f.y1(), x1-x0, f.y0()-f.y1(), "")
		w := 6.2*float64(len([]rune(a.Kind))) + 6
		for r := range rowEnd {
			if x0+3 > rowEnd[r] && x0+w <= f.x1()+40 {
				s.text(x0+3, f.y1()+12+13*float64(r), "splabel", a.Kind)
				rowEnd[r] = x0 + w
				break
			}
		}
		s.str(`</g>`)
	}
}

// SeverityClass maps a severity to a fixed CSS class, so hostile input cannot inject one.
func SeverityClass(sev string) string {
	switch sev {
	case "critical", "warning":
		return sev
	}
	return "info"
}

// gapThreshold is the silence after which a line is broken rather than drawn across: eight
// typical intervals, and at least two minutes (an engine logs nothing while idle). The rolling
// mean bridges gaps narrower than its window, since its window still holds data there.
func gapThreshold(pts []schema.HistoryPoint) int64 {
	if len(pts) < 2 {
		return math.MaxInt64
	}
	dt := make([]int64, 0, len(pts)-1)
	for i := 1; i < len(pts); i++ {
		dt = append(dt, pts[i].T-pts[i-1].T)
	}
	sort.Slice(dt, func(i, j int) bool { return dt[i] < dt[j] })
	return max(8*dt[len(dt)/2], int64(2*time.Minute))
}

// rolling is the centred mean over a time window of width win, never across a gap: the level
// a reader would draw through the raw line.
func rolling(ts []int64, vs []float64, win, gap int64) []float64 {
	out := make([]float64, len(vs))
	for start := 0; start < len(ts); {
		end := start + 1
		for end < len(ts) && ts[end]-ts[end-1] <= gap {
			end++
		}
		lo, hi, sum := start, start, 0.0
		for i := start; i < end; i++ {
			for hi < end && ts[hi] <= ts[i]+win/2 {
				sum += vs[hi]
				hi++
			}
			for ts[lo] < ts[i]-win/2 {
				sum -= vs[lo]
				lo++
			}
			out[i] = sum / float64(hi-lo)
		}
		start = end
	}
	return out
}
