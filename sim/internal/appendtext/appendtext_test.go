package appendtext

import (
	"math"
	"testing"
	"time"
)

// TestAppenders pins each appender against the text fmt, time.Format or Python would print.
func TestAppenders(t *testing.T) {
	zone := time.FixedZone("", -(3*3600 + 30*60))
	tm := time.Date(2026, 3, 7, 9, 5, 1, 123456789, zone)
	pad := func(s string, width int, f func([]byte, int, int) []byte) string {
		b := []byte("|")
		return string(f(append(b, s...), 1, width))
	}
	cases := []struct{ got, want string }{
		{string(Fixed(nil, 2.675, 2)), "2.67"},                // the binary value is 2.67499…, as Python rounds it
		{string(Fixed(nil, 0.125, 2)), "0.12"},                // half to even on an exact tie
		{string(Fixed(nil, math.Copysign(0, -1), 2)), "0.00"}, // no negative zero
		{string(Fixed(nil, 1234.5, 0)), "1234"},
		{string(Int(nil, -42)), "-42"},
		{pad("42", 5, PadLeft), "|   42"},
		{pad("123456", 5, PadLeft), "|123456"},
		{pad("vllm-1", 9, PadRight), "|vllm-1   "},
		{string(Digits2(nil, 7)), "07"},
		{string(Digits4(nil, 26)), "0026"},
		{string(Frac(nil, tm, 3)), "123"},
		{string(Frac(nil, tm, 9)), "123456789"},
		{string(Date(nil, tm)), "2026-03-07"},
		{string(Clock(nil, tm)), "09:05:01"},
		{string(SyslogTime(nil, tm)), "Mar 07 09:05:01"},
		{string(Zone(nil, tm, false)), "-0330"},
		{string(Zone(nil, tm, true)), "-03:30"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: %q, want %q", i, c.got, c.want)
		}
	}
}
