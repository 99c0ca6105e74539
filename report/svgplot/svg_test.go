package svgplot

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/report/numfmt"
)

func tickValues(ts []tick) []float64 {
	out := make([]float64, len(ts))
	for i, t := range ts {
		out[i] = t.v
	}
	return out
}

func tickLabels(ts []tick) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.label
	}
	return out
}

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		name     string
		lo, hi   float64
		n        int
		want     []string
		dlo, dhi float64
	}{
		{"step ms", 0, 216, 5, []string{"0", "50", "100", "150", "200", "250"}, 0, 250},
		{"tokens", 0, 9090, 6, []string{"0", "2k", "4k", "6k", "8k", "10k"}, 0, 10000},
		{"kv percent", 0, 65.2, 6, []string{"0", "20", "40", "60", "80"}, 0, 80},
		{"commit", 0, 7.91, 4, []string{"0", "2", "4", "6", "8"}, 0, 8},
		{"two and a half", 0, 9.5, 4, []string{"0.0", "2.5", "5.0", "7.5", "10.0"}, 0, 10},
		{"log ratio", -0.85, 0, 4, []string{"−1.00", "−0.75", "−0.50", "−0.25", "0.00"}, -1, 0},
		{"signed", -0.69, 0.11, 4, []string{"−0.8", "−0.6", "−0.4", "−0.2", "0.0", "0.2"}, -0.8, 0.2},
		{"small", 0.0012, 0.0047, 4, []string{"0.001", "0.002", "0.003", "0.004", "0.005"}, 0.001, 0.005},
		{"tokens 128k", 0, 131072, 4, []string{"0", "50k", "100k", "150k"}, 0, 150000},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts, dlo, dhi := niceTicks(c.lo, c.hi, c.n)
			if got := tickLabels(ts); !slices.Equal(got, c.want) {
				t.Errorf("labels %q, want %q", got, c.want)
			}
			if math.Abs(dlo-c.dlo) > 1e-12 || math.Abs(dhi-c.dhi) > 1e-12 {
				t.Errorf("domain [%g, %g], want [%g, %g]", dlo, dhi, c.dlo, c.dhi)
			}
			if dlo > c.lo || dhi < c.hi {
				t.Errorf("domain [%g, %g] does not cover the data [%g, %g]", dlo, dhi, c.lo, c.hi)
			}
		})
	}
}

// Degenerate input must still give an axis with at least two ticks and a non-empty domain, or
// a scale would divide by zero.
func TestNiceTicksDegenerate(t *testing.T) {
	for _, c := range []struct{ lo, hi float64 }{
		{0, 0}, {5, 5}, {-3, -3}, {math.NaN(), 1}, {0, math.Inf(1)}, {math.Inf(-1), math.NaN()}, {7, 2}, {1e-300, 1e-300},
	} {
		ts, dlo, dhi := niceTicks(c.lo, c.hi, 5)
		if len(ts) < 2 || !(dhi > dlo) || !numfmt.Finite(dlo) || !numfmt.Finite(dhi) {
			t.Errorf("niceTicks(%g, %g) = %v, [%g, %g]", c.lo, c.hi, ts, dlo, dhi)
		}
		for _, tk := range ts {
			if !numfmt.Finite(tk.v) || strings.Contains(tk.label, "NaN") || strings.Contains(tk.label, "Inf") {
				t.Errorf("niceTicks(%g, %g): tick %+v", c.lo, c.hi, tk)
			}
		}
	}
	if ts, lo, _ := niceTicks(5, 5, 5); lo > 5 || tickValues(ts)[0] > 5 {
		t.Errorf("a single value 5 gives domain from %g", lo)
	}
}

func TestNiceStep(t *testing.T) {
	for raw, want := range map[float64]float64{0.9: 1, 1: 1, 1.1: 2, 2.1: 2.5, 2.6: 5, 5.1: 10, 43: 50, 180: 200, 0: 1, -3: 1} {
		if got := niceStep(raw); math.Abs(got-want) > 1e-12 {
			t.Errorf("niceStep(%g) = %g, want %g", raw, got, want)
		}
	}
}

func TestLinearScale(t *testing.T) {
	l := linear{0, 100, 50, 250}
	for v, want := range map[float64]float64{0: 50, 50: 150, 100: 250, -10: 30} {
		if got := l.at(v); got != want {
			t.Errorf("at(%g) = %g, want %g", v, got, want)
		}
	}
	y := linear{0, 10, 300, 20} // a y axis: up is smaller pixels
	if y.at(10) != 20 || y.at(0) != 300 || y.clamp(-5) != 20 || y.clamp(999) != 300 {
		t.Errorf("y scale: at(10)=%g at(0)=%g clamp(-5)=%g clamp(999)=%g", y.at(10), y.at(0), y.clamp(-5), y.clamp(999))
	}
	if got := (linear{3, 3, 0, 100}).at(3); got != 50 {
		t.Errorf("empty domain maps to %g, want the middle 50", got)
	}
}

func TestSVGNumbers(t *testing.T) {
	var s svgBuf
	for _, v := range []float64{12.345, -0.04, math.NaN(), math.Inf(1), math.Inf(-1), 100, 1e7 + 0.06} {
		s.num(v)
		s.str(" ")
	}
	if got, want := s.b.String(), "12.3 0 0 0 0 100 10000000.1 "; got != want {
		t.Errorf("num: %q, want %q", got, want)
	}
}

func TestPolylineGaps(t *testing.T) {
	var p polyline
	p.to(1, 1)
	p.to(2, math.NaN())
	p.to(3, 3)
	p.to(4, 4)
	p.lift()
	p.to(math.Inf(1), 5)
	p.to(6, 6)
	var s svgBuf
	p.write(&s, "x")
	if got, want := s.b.String(), `<path class="x" d="M1 1m2 2l1 1m2 2"/>`; got != want {
		t.Errorf("path %s, want %s", got, want)
	}
	var empty polyline
	empty.to(math.NaN(), 1)
	s = svgBuf{}
	empty.write(&s, "x")
	if s.b.Len() != 0 {
		t.Errorf("an empty polyline wrote %q", s.b.String())
	}
}

// Relative steps in whole tenths: no drift over thousands of points, short numbers, and a
// minus sign as the only separator it needs.
func TestPathData(t *testing.T) {
	var d dots
	d.at(10.04, 20.06)
	d.at(9.0, 20.1)
	d.at(math.NaN(), 3)
	d.at(10.3, 19.8) // on the first dot's pixel: not drawn again
	d.at(12.35, 18)
	var s svgBuf
	d.write(&s, "x")
	if got, want := s.b.String(), `<path class="x" d="M10 20.1h0m-1 0h0m3.4-2.1h0"/>`; got != want {
		t.Errorf("dots %s, want %s", got, want)
	}
	var p polyline
	x := 0.0
	for range 10000 {
		x += 0.13
		p.to(x, -x)
	}
	p.lift() // draws the last point, held back for being within half a pixel
	if p.segs >= 10000 || p.segs < 1800 {
		t.Errorf("%d of 10000 points drawn 0.13 px apart; want about one per half pixel of travel", p.segs)
	}
	if p.d.x != tenths(x) || p.d.y != tenths(-x) {
		t.Errorf("after 10000 steps the path is at (%d, %d) tenths, want (%d, %d)", p.d.x, p.d.y, tenths(x), tenths(-x))
	}
	if got := tenths(math.Inf(1)); got != 1e10 {
		t.Errorf("tenths(+Inf) = %d", got)
	}
}

func TestTimeTicks(t *testing.T) {
	at := func(s string) int64 {
		tm, err := time.Parse(time.DateTime, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UnixNano()
	}
	for _, c := range []struct {
		from, to string
		want     []string
	}{
		{"2026-11-20 09:00:00", "2026-11-20 11:59:52", []string{"09:00", "09:30", "10:00", "10:30", "11:00", "11:30"}},
		{"2026-11-20 09:00:10", "2026-11-21 09:00:00", []string{"12:00", "15:00", "18:00", "21:00", "Nov 21", "03:00", "06:00", "09:00"}},
		{"2026-11-20 09:00:03", "2026-11-20 09:01:00", []string{"09:00:10", "09:00:20", "09:00:30", "09:00:40", "09:00:50", "09:01:00"}},
		{"2026-11-01 00:00:00", "2026-11-30 00:00:00", []string{"Nov 2", "Nov 9", "Nov 16", "Nov 23", "Nov 30"}}, // Mondays
		{"1969-12-31 22:00:00", "1970-01-01 02:00:00", []string{"22:00", "22:30", "23:00", "23:30", "Jan 1", "00:30", "01:00", "01:30", "02:00"}},
	} {
		if got := tickLabels(timeTicks(at(c.from), at(c.to), 10)); !slices.Equal(got, c.want) {
			t.Errorf("%s → %s: %q, want %q", c.from, c.to, got, c.want)
		}
	}
	if ts := timeTicks(5, 5, 10); ts != nil {
		t.Errorf("an empty span has ticks %v", ts)
	}
}

func TestRolling(t *testing.T) {
	s := int64(time.Second)
	ts := []int64{0, 1 * s, 2 * s, 3 * s, 100 * s, 101 * s}
	vs := []float64{1, 2, 3, 4, 10, 20}
	got := rolling(ts, vs, 2*s, 10*s)
	want := []float64{1.5, 2, 3, 3.5, 15, 15} // the gap at 3 s → 100 s separates the windows
	if !slices.Equal(got, want) {
		t.Errorf("rolling = %v, want %v", got, want)
	}
	if got := rolling(nil, nil, s, s); len(got) != 0 {
		t.Errorf("rolling of nothing = %v", got)
	}
}

func TestFormatting(t *testing.T) {
	for _, c := range [][2]string{
		{numfmt.Fixed(-0.004, 2), "0.00"}, {numfmt.Fixed(-1.5, 1), "−1.5"}, {numfmt.Fixed(math.NaN(), 1), "—"},
		{signed(-0.504), "−0.50"}, {signed(0.011), "+0.01"},
		{shareText(-0.5, -0.49), "102\u00a0%"}, {shareText(0.01, -0.49), "−2\u00a0%"}, {shareText(1, 0.001), ""},
	} {
		if c[0] != c[1] {
			t.Errorf("got %q, want %q", c[0], c[1])
		}
	}
}
