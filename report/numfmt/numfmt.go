// Package numfmt is how the report prints figures, times and durations for people, in one
// place: the page, the plots, the text report and the sentences of the explanation.
package numfmt

import (
	"math"
	"strconv"
	"time"
)

// Dash stands for a value that is not there (non-finite, not measured yet): no figure, in a plot
// label or on the page, prints NaN or Inf.
const Dash = "—"

// Finite reports whether v is neither NaN nor ±Inf.
func Finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Fixed prints v with d decimals, a real minus, and Dash for a non-finite value.
func Fixed(v float64, d int) string {
	if !Finite(v) {
		return Dash
	}
	s := strconv.FormatFloat(v, 'f', d, 64)
	if s[0] == '-' {
		if z, _ := strconv.ParseFloat(s[1:], 64); z == 0 {
			return s[1:]
		}
		return "−" + s[1:]
	}
	return s
}

// Formatting for people: figures with the precision they are quoted with, times in UTC like
// every time in the report, durations in words. None of them print NaN or Inf: "—" instead.

// Thousands groups an integer's digits with thin spaces: 1 234 567.
func Thousands(n int64) string {
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

// TPS prints a throughput as people quote it: 371, 59.1, 0.74.
func TPS(v float64) string {
	switch a := math.Abs(v); {
	case !Finite(v):
		return Dash
	case a >= 100:
		return Fixed(v, 0)
	case a >= 10:
		return Fixed(v, 1)
	}
	return Fixed(v, 2)
}

// Ctx prints a context size in the series' unit: "4 482 tokens" or "12.5 % KV".
func Ctx(v float64, kv bool) string {
	if kv {
		return Fixed(v, 1) + " % KV"
	}
	if !Finite(v) {
		return Dash
	}
	return Thousands(int64(math.Round(v))) + " tokens"
}

// Time is a full timestamp in UTC.
func Time(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") + " UTC" }

// Clock is t's clock time, with its date only if it is not ref's date.
func Clock(t, ref time.Time) string {
	t, ref = t.UTC(), ref.UTC()
	if t.Format(time.DateOnly) != ref.Format(time.DateOnly) {
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format(time.TimeOnly)
}

// Dur is a duration in words at the precision a person reads: "45 s", "15 min",
// "2 h 59 min", "3 d 4 h".
func Dur(d time.Duration) string {
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

// The explanation's sentences are plain text that logs, alerts and JSON readers quote: their
// thousands take a comma ("5,553"), never the page's thin space.

// Commas formats v rounded to an integer as "5,553".
func Commas(v float64) string {
	n := int64(math.Round(v))
	if n < 0 {
		return "-" + Commas(float64(-n))
	}
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Pct is a fraction in whole percent, without the "-0" that rounding a tiny negative gives.
func Pct(x float64) float64 {
	if v := math.Round(100 * x); v != 0 {
		return v
	}
	return 0
}

// Share is x as a fraction of total, 0 when total is too near 0 for a share to mean anything.
func Share(x, total float64) float64 {
	if math.Abs(total) < 1e-9 {
		return 0
	}
	return x / total
}

// CtxShort is a forecast context as people say it: 4k, 32k, 128k (of 1024 tokens).
func CtxShort(n int) string {
	if n >= 1024 && n%1024 == 0 {
		return strconv.Itoa(n/1024) + "k"
	}
	return Thousands(int64(n))
}
