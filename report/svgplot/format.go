package svgplot

import (
	"math"
	"strconv"
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
