package sim

import (
	"strconv"
	"time"
)

// The appenders below write into a caller's buffer so that a line costs no allocation; they
// replace fmt and time.Format on the hot path.

// appendFixed writes x with prec decimals, rounding as Python's format(x, ".Nf") does (both round
// the exact binary value), so the written figures match the engines' own.
func appendFixed(b []byte, x float64, prec int) []byte {
	if x == 0 {
		x = 0 // no "-0.00"
	}
	return strconv.AppendFloat(b, x, 'f', prec, 64)
}

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// padLeft right-aligns the bytes written since start in a field of width, like printf's %5d.
func padLeft(b []byte, start, width int) []byte {
	n := len(b) - start
	if n >= width {
		return b
	}
	pad := width - n
	for range pad {
		b = append(b, ' ')
	}
	copy(b[start+pad:], b[start:start+n])
	for i := start; i < start+pad; i++ {
		b[i] = ' '
	}
	return b
}

func append2(b []byte, v int) []byte { return append(b, byte('0'+v/10%10), byte('0'+v%10)) }

func append4(b []byte, v int) []byte { return append2(append2(b, v/100), v%100) }

// appendFrac writes the first digits decimals of the nanoseconds in t.
func appendFrac(b []byte, t time.Time, digits int) []byte {
	ns := t.Nanosecond()
	div := 100_000_000
	for range digits {
		b = append(b, byte('0'+ns/div%10))
		div /= 10
	}
	return b
}

// appendDate writes 2026-11-20.
func appendDate(b []byte, t time.Time) []byte {
	y, m, d := t.Date()
	b = append4(b, y)
	b = append(b, '-')
	b = append2(b, int(m))
	b = append(b, '-')
	return append2(b, d)
}

// appendClock writes 09:00:01.
func appendClock(b []byte, t time.Time) []byte {
	h, m, s := t.Clock()
	b = append2(b, h)
	b = append(b, ':')
	b = append2(b, m)
	b = append(b, ':')
	return append2(b, s)
}

// appendSyslogTime writes journalctl's short time, "Nov 20 09:00:01".
func appendSyslogTime(b []byte, t time.Time) []byte {
	_, m, d := t.Date()
	b = append(b, m.String()[:3]...)
	b = append(b, ' ')
	b = append2(b, d)
	b = append(b, ' ')
	return appendClock(b, t)
}

// appendZone writes the UTC offset as +0000 (short-iso) or +00:00.
func appendZone(b []byte, t time.Time, colon bool) []byte {
	_, off := t.Zone()
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	b = append(b, sign)
	b = append2(b, off/3600)
	if colon {
		b = append(b, ':')
	}
	return append2(b, off/60%60)
}
