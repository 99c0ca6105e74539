package lex

import "bytes"

// Rate reads an acceptance or usage figure, either a fraction ("0.13") or a percentage
// ("62.5%"), and refuses anything outside [0, 1] after conversion.
func Rate(v []byte) (float64, bool) {
	pct := len(v) > 0 && v[len(v)-1] == '%'
	if pct {
		v = v[:len(v)-1]
	}
	x, ok := WholeNumber(v)
	if !ok {
		return 0, false
	}
	if pct {
		x /= 100
	}
	return x, x <= 1
}

// WithUnit reads "96.4 tokens/s" or "2 reqs": a number, then exactly the expected unit (or none).
func WithUnit(v []byte, unit string) (float64, bool) {
	x, n := Number(v)
	if n == 0 {
		return 0, false
	}
	rest := v[n:]
	if len(rest) == 0 {
		return x, true
	}
	if len(rest) == len(unit)+1 && rest[0] == ' ' && string(rest[1:]) == unit {
		return x, true
	}
	return 0, false
}

// Boolean reads Python's True/False.
func Boolean(v []byte) (float64, bool) {
	switch string(v) {
	case "True", "true":
		return 1, true
	case "False", "false":
		return 0, true
	}
	return 0, false
}

// KeyBefore returns the key that ends b, which ends at a '='.
func KeyBefore(b []byte) []byte {
	k := len(b)
	for k > 0 && isKeyByte(b[k-1]) {
		k--
	}
	return b[k:]
}

// ValueAt returns the value that starts b, which follows a '='.
func ValueAt(b []byte) []byte {
	e := 0
	for e < len(b) && !isValueEnd(b[e]) {
		e++
	}
	return b[:e]
}

func isKeyByte(c byte) bool { return kvClass[c]&keyByte != 0 }

func isValueEnd(c byte) bool { return kvClass[c]&valueEnd != 0 }

// kvClass sorts bytes for the key=value loops, which test every byte of a statistics line: one
// table load instead of a chain of comparisons.
var kvClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' {
			t[c] |= keyByte
		}
	}
	for _, c := range " ,)]};\t" {
		t[c] |= valueEnd
	}
	return t
}()

const (
	keyByte  = 1 << iota // may be part of a key
	valueEnd             // ends a value
)

// CountAfter expects lead, blanks, an integer, then tail, at b[*i:].
func CountAfter(b []byte, i *int, lead, tail string) (float64, bool) {
	j := *i
	x, ok := NumberAfter(b, &j, lead, tail)
	if !ok || bytes.IndexByte(b[*i+len(lead):j-len(tail)], '.') >= 0 {
		return 0, false
	}
	*i = j
	return x, true
}

// NumberAfter expects lead, blanks, a number, then tail, at b[*i:], and moves *i past tail.
func NumberAfter(b []byte, i *int, lead, tail string) (float64, bool) {
	j := *i
	if !bytes.HasPrefix(b[j:], []byte(lead)) {
		return 0, false
	}
	j += len(lead)
	for j < len(b) && b[j] == ' ' {
		j++
	}
	x, n := Number(b[j:])
	if n == 0 || !bytes.HasPrefix(b[j+n:], []byte(tail)) {
		return 0, false
	}
	*i = j + n + len(tail)
	return x, true
}
