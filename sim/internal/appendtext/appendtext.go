// Package appendtext appends numbers and timestamps to a caller's buffer, the way the engines,
// journalctl and docker print them. It replaces fmt and time.Format on the simulator's hot path,
// where a line must cost no allocation; the engine line writers and the record framing share it.
package appendtext

import (
	"strconv"
	"time"
)

// Fixed writes x with prec decimals, rounding as Python's format(x, ".Nf") does (both round
// the exact binary value), so the written figures match the engines' own.
func Fixed(b []byte, x float64, prec int) []byte {
	if x == 0 {
		x = 0 // no "-0.00"
	}
	return strconv.AppendFloat(b, x, 'f', prec, 64)
}

// Int writes v in decimal.
func Int(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// PadLeft right-aligns the bytes written since start in a field of width, like printf's %5d.
func PadLeft(b []byte, start, width int) []byte {
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

// Digits2 writes the last two decimal digits of v, zero-padded.
func Digits2(b []byte, v int) []byte { return append(b, byte('0'+v/10%10), byte('0'+v%10)) }

// Digits4 writes the last four decimal digits of v, zero-padded.
func Digits4(b []byte, v int) []byte { return Digits2(Digits2(b, v/100), v%100) }

// Frac writes the first digits decimals of the nanoseconds in t.
func Frac(b []byte, t time.Time, digits int) []byte {
	ns := t.Nanosecond()
	div := 100_000_000
	for range digits {
		b = append(b, byte('0'+ns/div%10))
		div /= 10
	}
	return b
}

// Date writes 2026-11-20.
func Date(b []byte, t time.Time) []byte {
	y, m, d := t.Date()
	b = Digits4(b, y)
	b = append(b, '-')
	b = Digits2(b, int(m))
	b = append(b, '-')
	return Digits2(b, d)
}

// Clock writes 09:00:01.
func Clock(b []byte, t time.Time) []byte {
	h, m, s := t.Clock()
	b = Digits2(b, h)
	b = append(b, ':')
	b = Digits2(b, m)
	b = append(b, ':')
	return Digits2(b, s)
}

// SyslogTime writes journalctl's short time, "Nov 20 09:00:01".
func SyslogTime(b []byte, t time.Time) []byte {
	_, m, d := t.Date()
	b = append(b, m.String()[:3]...)
	b = append(b, ' ')
	b = Digits2(b, d)
	b = append(b, ' ')
	return Clock(b, t)
}

// Zone writes the UTC offset as +0000 (short-iso) or +00:00.
func Zone(b []byte, t time.Time, colon bool) []byte {
	_, off := t.Zone()
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	b = append(b, sign)
	b = Digits2(b, off/3600)
	if colon {
		b = append(b, ':')
	}
	return Digits2(b, off/60%60)
}

// PadRight pads the bytes written since start with spaces to width, like printf's %-5s.
func PadRight(b []byte, start, width int) []byte {
	for len(b)-start < width {
		b = append(b, ' ')
	}
	return b
}
