package report

import (
	"math"
	"strconv"
	"time"

	"github.com/specwatch/specwatch/report/svgplot"
)

// Formatting for people: figures with the precision they are quoted with, times in UTC like
// every time in the report, durations in words. None of them print NaN or Inf: "—" instead.

// thousands groups an integer's digits with thin spaces: 1 234 567.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3*3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, "\u2009"...)
		}
		out = append(out, s[i])
	}
	if neg {
		return "−" + string(out)
	}
	return string(out)
}

// tps prints a throughput as people quote it: 371, 59.1, 0.74.
func tps(v float64) string {
	switch a := math.Abs(v); {
	case !svgplot.Finite(v):
		return svgplot.Dash
	case a >= 100:
		return svgplot.Fixed(v, 0)
	case a >= 10:
		return svgplot.Fixed(v, 1)
	}
	return svgplot.Fixed(v, 2)
}

// ctxText prints a context size in the series' unit: "4 482 tokens" or "12.5 % KV".
func ctxText(v float64, kv bool) string {
	if kv {
		return svgplot.Fixed(v, 1) + " % KV"
	}
	if !svgplot.Finite(v) {
		return svgplot.Dash
	}
	return thousands(int64(math.Round(v))) + " tokens"
}

// fmtTime is a full timestamp in UTC.
func fmtTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") + " UTC" }

// fmtClock is t's clock time, with its date only if it is not ref's date.
func fmtClock(t, ref time.Time) string {
	t, ref = t.UTC(), ref.UTC()
	if t.Format(time.DateOnly) != ref.Format(time.DateOnly) {
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format(time.TimeOnly)
}

// fmtDur is a duration in words at the precision a person reads: "45 s", "15 min",
// "2 h 59 min", "3 d 4 h".
func fmtDur(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return strconv.FormatInt(s, 10) + " s"
	case s < 3600:
		return strconv.FormatInt(s/60, 10) + " min"
	case s < 2*86400:
		h, m := s/3600, s%3600/60
		if m == 0 {
			return strconv.FormatInt(h, 10) + " h"
		}
		return strconv.FormatInt(h, 10) + " h " + strconv.FormatInt(m, 10) + " min"
	}
	return strconv.FormatInt(s/86400, 10) + " d " + strconv.FormatInt(s%86400/3600, 10) + " h"
}
