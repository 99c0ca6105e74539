package svgplot

import (
	"strconv"

	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/report/numfmt"
)

// PerPosition draws acceptance per draft position as vertical bars (the share of verify steps
// whose token at that position was accepted), each labelled with its value and, above, the
// conditional acceptance given the position before; positions the advice would drop are
// drawn in the warning colour.
func PerPosition(pp *schema.PerPosition, label string) Drawn {
	if pp == nil || len(pp.Acceptance) == 0 {
		return Drawn{}
	}
	n := len(pp.Acceptance)
	cut := n
	if pp.Advice != nil {
		cut = pp.Advice.Suggested
	}
	f := newFrame(halfW, 260, plotLeft, plotRgt, 34, 46)
	f.setX(0, float64(n))
	f.setY(0, 1)
	var s svgBuf
	f.open(&s, "perpos", "acceptance per draft position, "+label)
	for _, t := range []float64{0, 0.25, 0.5, 0.75, 1} {
		y := f.y.at(t)
		s.line(f.x0(), y, f.x1(), y, "grid")
		s.text(f.x0()-8, y+4, "yt", numfmt.Fixed(100*t, 0)+"\u00a0%")
	}
	bw := (f.x1() - f.x0()) / float64(n)
	// A long draft (an n-gram draft's 64 positions) leaves bars too narrow for their labels:
	// the values stay in the bars' titles, and every k-th position is numbered.
	labels, every := bw >= 24, 1
	for bw*float64(every) < 24 {
		every *= 2
	}
	for i, a := range pp.Acceptance {
		if !numfmt.Finite(a) {
			a = 0
		}
		a = min(max(a, 0), 1)
		x := f.x.at(float64(i))
		class := "bar acc"
		if i >= cut {
			class = "bar warn"
		}
		pos := strconv.Itoa(i + 1)
		s.str(`<g class="` + class + `"><title>`)
		s.esc("position " + pos + ": accepted in " + numfmt.Fixed(100*a, 1) + " % of verify steps")
		if i < len(pp.Conditional) {
			s.esc(", " + numfmt.Fixed(100*pp.Conditional[i], 1) + " % given position " + strconv.Itoa(i) + " was")
		}
		s.str(`</title>`)
		s.rect(x+bw*0.15, f.y.at(a), bw*0.7, max(f.y0()-f.y.at(a), 1), "")
		s.str(`</g>`)
		if labels {
			s.text(x+bw/2, f.y.at(a)-5, "pv", numfmt.Fixed(100*a, 0)+"\u00a0%")
		}
		if i == 0 || (i+1)%every == 0 {
			s.text(x+bw/2, f.y0()+17, "xt", pos)
		}
		if labels && i > 0 && i < len(pp.Conditional) {
			s.text(x+bw/2, f.y1()-12, "pv cond", "×"+numfmt.Fixed(pp.Conditional[i], 2))
		}
	}
	s.text((f.x0()+f.x1())/2, f.y0()+36, "atitle mid", "draft position (×: acceptance given the position before)")
	f.close(&s)
	return Drawn{SVG: s.html()}
}
