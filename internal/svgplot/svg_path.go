package svgplot

import (
	"math"
	"strconv"
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
type polyline struct {
	d    pathData
	pen  bool
	segs int // points drawn, for tests and for skipping an empty path
}

func (p *polyline) to(x, y float64) {
	if !Finite(x) || !Finite(y) {
		p.pen = false
		return
	}
	c := byte('m')
	if p.pen {
		c = 'l'
	}
	p.d.to(c, x, y)
	p.pen = true
	p.segs++
}

func (p *polyline) lift() { p.pen = false }

// write emits the path if it has at least one point.
func (p *polyline) write(s *svgBuf, class string) {
	if p.segs > 0 {
		p.d.write(s, class)
	}
}

// dots draws many small circles as one <path> of zero-length segments with round caps
// ("m dx dyh0"; the stroke width is the diameter): a third of the bytes of <circle> elements
// and one DOM node for thousands of samples, which keeps a day of data fast to lay out and
// paint.
type dots struct {
	d pathData
	n int
}

func (p *dots) at(x, y float64) {
	if !Finite(x) || !Finite(y) {
		return
	}
	p.d.to('m', x, y)
	p.d.raw("h0")
	p.n++
}

func (p *dots) write(s *svgBuf, class string) {
	if p.n > 0 {
		p.d.write(s, class)
	}
}
