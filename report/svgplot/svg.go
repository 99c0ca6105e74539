// Package svgplot draws the status page's plots as inline SVG: step time against context,
// quantities over time with anomaly spans, and the throughput attribution bars. The markup carries
// classes, not colours (the page's stylesheet sets them), is built by hand for speed, and escapes
// every text that comes from a log.
package svgplot

import (
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/specwatch/specwatch/report/numfmt"
)

// svgBuf builds SVG markup by hand. Plots carry thousands of points, so it appends numbers with
// strconv rather than fmt, and every number goes through num, which rounds to one decimal (crisp
// enough at 1x, a third of the bytes of full precision) and never lets NaN or ±Inf into the
// markup: a non-finite coordinate is a bug upstream, and "0" draws wrong but keeps the page valid.
type svgBuf struct {
	b   strings.Builder
	tmp []byte
}

func (s *svgBuf) str(v string) { s.b.WriteString(v) }

// esc writes text from logs (labels, details) escaped for element content and attribute values.
func (s *svgBuf) esc(v string) { s.b.WriteString(template.HTMLEscapeString(v)) }

func (s *svgBuf) num(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		s.b.WriteByte('0')
		return
	}
	v = math.Round(v*10) / 10
	if v == 0 {
		v = 0 // no "-0"
	}
	s.tmp = strconv.AppendFloat(s.tmp[:0], v, 'f', -1, 64)
	s.b.Write(s.tmp)
}

// attr writes ` name="v"` for a number.
func (s *svgBuf) attr(name string, v float64) {
	s.b.WriteByte(' ')
	s.b.WriteString(name)
	s.b.WriteString(`="`)
	s.num(v)
	s.b.WriteByte('"')
}

// text writes one <text> element; class sets its style and anchor in the stylesheet.
func (s *svgBuf) text(x, y float64, class, v string) {
	s.str(`<text`)
	s.attr("x", x)
	s.attr("y", y)
	if class != "" {
		s.str(` class="` + class + `"`)
	}
	s.str(`>`)
	s.esc(v)
	s.str(`</text>`)
}

// line writes one straight segment with a class.
func (s *svgBuf) line(x1, y1, x2, y2 float64, class string) {
	s.str(`<path class="` + class + `" d="M`)
	s.num(x1)
	s.str(` `)
	s.num(y1)
	s.str(`L`)
	s.num(x2)
	s.str(` `)
	s.num(y2)
	s.str(`"/>`)
}

func (s *svgBuf) rect(x, y, w, h float64, class string) {
	s.str(`<rect`)
	s.attr("x", x)
	s.attr("y", y)
	s.attr("width", math.Max(w, 0))
	s.attr("height", math.Max(h, 0))
	s.str(` class="` + class + `"/>`)
}

func (s *svgBuf) circle(x, y, r float64) {
	s.str(`<circle`)
	s.attr("cx", x)
	s.attr("cy", y)
	s.attr("r", r)
	s.str(`/>`)
}

func (s *svgBuf) html() template.HTML { return template.HTML(s.b.String()) }

// linear maps the data interval [d0, d1] onto the pixel interval [r0, r1]. An empty interval
// (all x equal, a single point) maps to the middle instead of dividing by zero.
type linear struct{ d0, d1, r0, r1 float64 }

func (l linear) at(v float64) float64 {
	if l.d1 == l.d0 {
		return (l.r0 + l.r1) / 2
	}
	return l.r0 + (v-l.d0)/(l.d1-l.d0)*(l.r1-l.r0)
}

// clampTo keeps a pixel coordinate inside the scale's range (off-scale points sit on the edge).
func (l linear) clamp(px float64) float64 {
	lo, hi := math.Min(l.r0, l.r1), math.Max(l.r0, l.r1)
	return math.Max(lo, math.Min(hi, px))
}

// extent tracks the range of finite values.
type extent struct {
	lo, hi float64
	n      int
}

func (e *extent) add(v float64) {
	if !numfmt.Finite(v) {
		return
	}
	if e.n == 0 || v < e.lo {
		e.lo = v
	}
	if e.n == 0 || v > e.hi {
		e.hi = v
	}
	e.n++
}

// tick is one labelled axis position.
type tick struct {
	v     float64
	label string
}

// niceTicks covers [lo, hi] with about n intervals of 1, 2, 2.5 or 5 × 10^k and returns the
// domain widened to whole ticks, so axes start and end on a labelled value people can read.
// Degenerate input (NaN, lo == hi) still yields a usable axis.
func niceTicks(lo, hi float64, n int) (ticks []tick, dlo, dhi float64) {
	if !numfmt.Finite(lo) || !numfmt.Finite(hi) {
		lo, hi = 0, 1
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	if hi == lo {
		pad := math.Abs(lo) * 0.1
		if pad == 0 {
			pad = 1
		}
		lo, hi = lo-pad, hi+pad
		if lo < 0 && lo+pad >= 0 {
			lo = 0 // a single value ≥ 0 keeps an axis starting at zero
		}
	}
	if n < 1 {
		n = 1
	}
	step := niceStep((hi - lo) / float64(n))
	i0, i1 := math.Floor(lo/step+1e-9), math.Ceil(hi/step-1e-9)
	for i := i0; i <= i1; i++ {
		v := i * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, tick{v: v, label: fmtTick(v, step)})
	}
	return ticks, i0 * step, i1 * step
}

// niceStep is the smallest of 1, 2, 2.5, 5 × 10^k at least raw.
func niceStep(raw float64) float64 {
	if !(raw > 0) || !numfmt.Finite(raw) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// fmtTick prints a tick with just the decimals its step needs; thousands become "k" (context
// axes read 0, 8k, 16k, 24k) and millions "M". Negative values take a real minus sign.
func fmtTick(v, step float64) string {
	suffix := ""
	switch {
	case step >= 1e6:
		v, step, suffix = v/1e6, step/1e6, "M"
	case step >= 1e3:
		v, step, suffix = v/1e3, step/1e3, "k"
	}
	d := 0
	for d < 6 && math.Abs(step*math.Pow(10, float64(d))-math.Round(step*math.Pow(10, float64(d)))) > 1e-6 {
		d++
	}
	s := strconv.FormatFloat(v, 'f', d, 64)
	if v == 0 {
		if suffix != "" {
			return "0" // "0", not "0k": zero has no unit to scale
		}
		s = strconv.FormatFloat(0, 'f', d, 64)
	}
	if strings.HasPrefix(s, "-") {
		s = "−" + s[1:]
	}
	return s + suffix
}
