package svgplot

import (
	"math"
	"strconv"

	"github.com/specwatch/specwatch/report/numfmt"
)

// pathData is SVG path data in relative coordinates of whole tenths of a pixel: "M12.3 45.6"
// for the first point, then "l1.2-0.4" steps. Neighbouring points are close, so the steps are
// short: a day of samples takes a third fewer bytes than absolute coordinates, and integers
// keep the steps from accumulating rounding error.
type pathData struct {
	b       []byte
	x, y    int64 // the current point, in tenths
	started bool
}

// to appends a move ('m') or line ('l') to (x, y); finite is the caller's job.
func (p *pathData) to(c byte, x, y float64) {
	kx, ky := tenths(x), tenths(y)
	if !p.started {
		p.b = append(p.b, c-'a'+'A') // the first point is absolute
		p.b = appendTenths(p.b, kx)
		p.b = appendSep(p.b, ky)
		p.started = true
	} else {
		p.b = append(p.b, c)
		p.b = appendTenths(p.b, kx-p.x)
		p.b = appendSep(p.b, ky-p.y)
	}
	p.x, p.y = kx, ky
}

func (p *pathData) raw(s string) { p.b = append(p.b, s...) }

// write emits the <path> element.
func (p *pathData) write(s *svgBuf, class string) {
	s.str(`<path class="` + class + `" d="`)
	s.b.Write(p.b)
	s.str(`"/>`)
}

// tenths rounds a pixel coordinate to tenths, bounded so that no input can overflow.
func tenths(v float64) int64 { return int64(math.Round(math.Max(-1e9, math.Min(1e9, v)) * 10)) }

func appendTenths(b []byte, k int64) []byte {
	if k < 0 {
		b = append(b, '-')
		k = -k
	}
	b = strconv.AppendInt(b, k/10, 10)
	if r := k % 10; r != 0 {
		b = append(b, '.', byte('0'+r))
	}
	return b
}

// appendSep appends the second number of a pair: a minus sign separates it by itself.
func appendSep(b []byte, k int64) []byte {
	if k >= 0 {
		b = append(b, ' ')
	}
	return appendTenths(b, k)
}

// polyline accumulates one <path> for a line that may have gaps: a non-finite point or a break
// lifts the pen, so one element draws the whole series (thousands of <line>s would be slow).
//
// A point within half a pixel of the last one drawn is held back rather than drawn: a day of
// samples puts several on each pixel column of a plot, and the line through them looks the
// same. The held point is drawn when the pen lifts or the path ends, so the line still ends
// where the data does.
type polyline struct {
	d      pathData
	pen    bool
	segs   int // points drawn, for tests and for skipping an empty path
	lx, ly float64
	held   bool
	hx, hy float64
}

func (p *polyline) to(x, y float64) {
	if !numfmt.Finite(x) || !numfmt.Finite(y) {
		p.lift()
		return
	}
	if p.pen && math.Abs(x-p.lx) < 0.5 && math.Abs(y-p.ly) < 0.5 {
		p.held, p.hx, p.hy = true, x, y
		return
	}
	// A flat stretch (a rolling mean that does not move, a prediction that holds) is one
	// segment: the points along it are held, and only its end is drawn.
	if p.pen && tenths(y) == tenths(p.ly) && (!p.held || tenths(p.hy) == tenths(p.ly)) {
		p.held, p.hx, p.hy = true, x, y
		return
	}
	if p.held {
		p.draw(p.hx, p.hy)
	}
	p.draw(x, y)
}

func (p *polyline) draw(x, y float64) {
	c := byte('m')
	if p.pen {
		c = 'l'
	}
	p.d.to(c, x, y)
	p.pen, p.held = true, false
	p.lx, p.ly = x, y
	p.segs++
}

// lift ends the current stretch of line, drawing a point held back.
func (p *polyline) lift() {
	if p.held {
		p.draw(p.hx, p.hy)
	}
	p.pen = false
}

// write emits the path if it has at least one point.
func (p *polyline) write(s *svgBuf, class string) {
	p.lift()
	if p.segs > 0 {
		p.d.write(s, class)
	}
}

// dots draws many small circles as one <path> of zero-length segments with round caps
// ("m dx dyh0"; the stroke width is the diameter): a third of the bytes of <circle> elements
// and one DOM node for thousands of samples, which keeps a day of data fast to lay out and
// paint. A dot on a pixel that already has one is not drawn again: the dots are wider than a
// pixel, so it would not show, and on a day of samples most dots are such repeats (the
// status page's plots were about 50 KB per series, refreshed every 10 s).
type dots struct {
	d    pathData
	n    int
	seen map[[2]int32]struct{}
}

func (p *dots) at(x, y float64) {
	if !numfmt.Finite(x) || !numfmt.Finite(y) {
		return
	}
	cell := [2]int32{int32(math.Round(math.Max(-1e9, math.Min(1e9, x)))), int32(math.Round(math.Max(-1e9, math.Min(1e9, y))))}
	if p.seen == nil {
		p.seen = make(map[[2]int32]struct{})
	}
	if _, dup := p.seen[cell]; dup {
		return
	}
	p.seen[cell] = struct{}{}
	p.d.to('m', x, y)
	p.d.raw("h0")
	p.n++
}

func (p *dots) write(s *svgBuf, class string) {
	if p.n > 0 {
		p.d.write(s, class)
	}
}
