package svgplot

import (
	"time"
)

// frame is one plot's geometry: the SVG's size, the margins that hold the axes, and the scales
// from data to the inner plot area. Every plot on the page is a frame, so axes, fonts and grid
// look the same everywhere.
type frame struct {
	w, h                     float64
	left, right, top, bottom float64
	x, y                     linear
}

func newFrame(w, h, left, right, top, bottom float64) frame {
	return frame{w: w, h: h, left: left, right: right, top: top, bottom: bottom}
}

// x0, x1, y0, y1 bound the plot area in pixels (y0 is the bottom).
func (f *frame) x0() float64 { return f.left }
func (f *frame) x1() float64 { return f.w - f.right }
func (f *frame) y0() float64 { return f.h - f.bottom }
func (f *frame) y1() float64 { return f.top }

func (f *frame) setX(d0, d1 float64) { f.x = linear{d0, d1, f.x0(), f.x1()} }
func (f *frame) setY(d0, d1 float64) { f.y = linear{d0, d1, f.y0(), f.y1()} }

// open starts the <svg>; label is the accessible name (escaped: it carries series labels).
func (f *frame) open(s *svgBuf, class, label string) {
	s.str(`<svg xmlns="http://www.w3.org/2000/svg" class="plot ` + class + `" role="img"`)
	s.attr("width", f.w)
	s.attr("height", f.h)
	s.str(` viewBox="0 0 `)
	s.num(f.w)
	s.str(" ")
	s.num(f.h)
	s.str(`" aria-label="`)
	s.esc(label)
	s.str(`">`)
}

func (f *frame) close(s *svgBuf) { s.str(`</svg>`) }

// yAxis draws horizontal grid lines with labels on the left, and the quantity with its unit
// above the axis, where it reads horizontally.
func (f *frame) yAxis(s *svgBuf, ticks []tick, title string) {
	for _, t := range ticks {
		y := f.y.at(t.v)
		s.line(f.x0(), y, f.x1(), y, "grid")
		s.text(f.x0()-6, y+4, "yt", t.label)
	}
	s.text(f.x0()-6, f.y1()-10, "atitle start", title)
}

// xAxis draws tick marks and labels under the plot area; grid draws vertical lines as well.
func (f *frame) xAxis(s *svgBuf, ticks []tick, title string, grid bool) {
	s.line(f.x0(), f.y0(), f.x1(), f.y0(), "axis")
	for _, t := range ticks {
		x := f.x.at(t.v)
		if grid {
			s.line(x, f.y0(), x, f.y1(), "grid")
		}
		s.line(x, f.y0(), x, f.y0()+4, "axis")
		s.text(x, f.y0()+17, "xt", t.label)
	}
	if title != "" {
		s.text(f.x1(), f.y0()+33, "atitle end", title)
	}
}

// timeSteps are the tick intervals people count in, in seconds.
var timeSteps = []int64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600,
	43200, 86400, 2 * 86400, 7 * 86400, 14 * 86400, 28 * 86400}

// timeTicks labels a time axis from t0 to t1 (Unix ns, UTC) with about n ticks on round clock
// times: "10:30", a date at midnight, seconds only when the span is that short.
func timeTicks(t0, t1 int64, n int) []tick {
	if t1 <= t0 || n < 1 {
		return nil
	}
	span := float64(t1-t0) / 1e9
	step := timeSteps[len(timeSteps)-1]
	for _, st := range timeSteps {
		if span/float64(st) <= float64(n) {
			step = st
			break
		}
	}
	var out []tick
	// Ticks sit on multiples of the step since the epoch (a midnight, UTC); weeks start on a
	// Monday (the epoch was a Thursday, 4 days after one).
	var off int64
	if step%(7*86400) == 0 {
		off = 4 * 86400
	}
	first := ceilDiv(t0/1e9-off, step)*step + off
	for sec := first; sec*1e9 <= t1; sec += step {
		tm := time.Unix(sec, 0).UTC()
		layout := "15:04"
		switch {
		case step >= 86400 || (tm.Hour() == 0 && tm.Minute() == 0 && tm.Second() == 0):
			layout = "Jan 2"
		case step < 60:
			layout = "15:04:05"
		}
		out = append(out, tick{v: float64(sec * 1e9), label: tm.Format(layout)})
	}
	return out
}

// ceilDiv is ⌈a/b⌉ for b > 0, also for negative a (times before 1970).
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}
