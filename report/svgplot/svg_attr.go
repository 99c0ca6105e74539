package svgplot

import (
	"math"
	"strconv"

	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/report/numfmt"
)

// factor is one term of the throughput attribution: ln of the factor by which it changed tok/s.
type factor struct {
	name, class string
	v           float64
}

// attrFactors lists the terms that add up to the total change, batch only when the number of
// running requests changed. Total = batch + acceptance + context + residual exactly, so the
// shares of the total add up to 100 %.
func attrFactors(a *schema.AttributionJSON) (fs []factor, total float64) {
	fs = []factor{{"acceptance", "acc", a.Acceptance}, {"context", "ctx", a.Context}, {"residual", "res", a.Residual}}
	if a.Batch != 0 {
		fs = append(fs, factor{"batch", "bat", a.Batch})
	}
	total = a.Total
	if total == 0 && a.Batch == 0 {
		total = a.LogRatio // a report from before Total existed
	}
	return fs, total
}

// shareText is x's part of total in whole percent, or "" when the total is too small for shares to
// mean anything (opposite terms cancelling).
func shareText(x, total float64) string {
	if !numfmt.Finite(x) || !numfmt.Finite(total) || math.Abs(total) < 0.01 {
		return ""
	}
	return numfmt.Fixed(100*x/total, 0) + "\u00a0%"
}

// Attribution draws the attribution as signed horizontal bars of log-ratio contributions
// (left of zero: made throughput fall), each with its value, the factor it multiplied tok/s by,
// and its share of the total change; the total is the last, dark bar.
func Attribution(a *schema.AttributionJSON, label string) Drawn {
	if a == nil {
		return Drawn{}
	}
	fs, total := attrFactors(a)
	fs = append(fs, factor{"total", "tot", total})
	var e extent
	e.add(0)
	for _, f := range fs {
		e.add(f.v)
	}
	// An axis at least minAttrSpan wide: fitted to factors of a few thousandths, a bar that
	// prints 0.00 would fill the plot as if it were the whole change.
	if e.hi-e.lo < minAttrSpan {
		if -e.lo > e.hi {
			e.lo = e.hi - minAttrSpan
		} else {
			e.hi = e.lo + minAttrSpan
		}
	}
	const rowH, top = 28.0, 26.0
	f := newFrame(halfW, top+rowH*float64(len(fs))+46, 96, 170, top, 46)
	xt, x0, x1 := niceTicks(e.lo, e.hi, 4)
	f.setX(x0, x1)
	var s svgBuf
	f.open(&s, "attr", "throughput attribution, "+label)
	for _, t := range xt {
		s.line(f.x.at(t.v), f.y0(), f.x.at(t.v), f.y1(), "grid")
		s.text(f.x.at(t.v), f.y0()+17, "xt", t.label)
	}
	s.text(f.x0(), f.y0()+34, "atitle start", "← lowered tok/s · log contribution · raised tok/s →")
	s.text(f.x1()+44, f.y1()-8, "atitle end", "log ratio")
	s.text(f.x1()+100, f.y1()-8, "atitle end", "factor")
	s.text(f.x1()+160, f.y1()-8, "atitle end", "share")
	for i, fc := range fs {
		y := f.y1() + rowH*float64(i)
		if fc.class == "tot" {
			s.line(f.x0()-90, y, f.x1()+166, y, "sep")
		}
		v := fc.v
		if !numfmt.Finite(v) {
			v = 0
		}
		bx0, bx1 := f.x.at(0), f.x.at(v)
		s.str(`<g class="bar ` + fc.class + `"><title>`)
		s.esc(fc.name + ": log ratio " + signed(v) + ", tok/s ×" + strconv.FormatFloat(math.Exp(v), 'f', 2, 64))
		if sh := shareText(v, total); sh != "" {
			s.esc(", " + sh + " of the change")
		}
		s.str(`</title>`)
		if signed(v) == "0.00" {
			bx1 = bx0 // drawn as printed: no change, a hairline at zero
		}
		s.rect(math.Min(bx0, bx1), y+7, math.Max(math.Abs(bx1-bx0), 1), rowH-14, "")
		s.str(`</g>`)
		s.text(f.x0()-10, y+rowH/2+4, "rowl", fc.name)
		s.text(f.x1()+44, y+rowH/2+4, "val", signed(v))
		s.text(f.x1()+100, y+rowH/2+4, "val", "×"+strconv.FormatFloat(math.Exp(v), 'f', 2, 64))
		s.text(f.x1()+160, y+rowH/2+4, "val", shareText(v, total))
	}
	s.line(f.x.at(0), f.y0(), f.x.at(0), f.y1()-4, "zero")
	f.close(&s)
	return Drawn{SVG: s.html()}
}

// minAttrSpan is the narrowest attribution axis, in log ratio: ×1.105 of tok/s.
const minAttrSpan = 0.1

// signed prints a log ratio with an explicit sign and a real minus.
func signed(v float64) string {
	v = math.Round(v*100) / 100
	switch {
	case v > 0:
		return "+" + strconv.FormatFloat(v, 'f', 2, 64)
	case v < 0:
		return "−" + strconv.FormatFloat(-v, 'f', 2, 64)
	}
	return "0.00"
}
