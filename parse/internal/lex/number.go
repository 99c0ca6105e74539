// Package lex holds the byte-level readers package parse is built from: plain decimals, digit
// runs, word bytes, ANSI colour codes, bracketed lists, rates and units, and the walkers over
// "key: value", "key = value" and key=value records. They are allocation-free and inlined into parse's hot
// paths; a package of their own keeps parse itself to its engines' formats.
package lex

// pow10 holds the exact powers of ten a float64 can represent, so that mantissa/10^k is one
// correctly rounded division (Clinger's fast path) and "2.90" reads exactly as strconv would.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// maxDigits bounds a number's digits. Engines print at most a dozen; a longer run is damage
// (a glued record, a cut line) and must not turn into a plausible value.
const maxDigits = 15

// Number reads a plain non-negative decimal at the start of b: digits, optionally '.' and at
// least one more digit. Signs, exponents, hex, nan and inf are refused on purpose: no engine
// prints them for these fields, so seeing one means the line is not what it claims to be.
// It returns the value and the bytes consumed (0 when b does not start with a valid number);
// callers decide what may follow ("1e309" and "0x10" stop after their first digit and then fail
// their caller's check of the rest).
func Number(b []byte) (float64, int) {
	var mant uint64
	i := 0
	for ; i < len(b) && b[i]-'0' <= 9; i++ {
		mant = mant*10 + uint64(b[i]-'0')
	}
	if i == 0 {
		return 0, 0
	}
	digits, frac := i, 0
	if i < len(b) && b[i] == '.' {
		j := i + 1
		for ; j < len(b) && b[j]-'0' <= 9; j++ {
			mant = mant*10 + uint64(b[j]-'0')
		}
		frac = j - i - 1
		if frac == 0 {
			return 0, 0 // "2." is a cut number
		}
		digits += frac
		i = j
	}
	if digits > maxDigits {
		return 0, 0
	}
	if frac == 0 {
		return float64(mant), i // most figures are counts: spare them the division
	}
	return float64(mant) / pow10[frac], i
}

// WholeNumber is number that must consume all of b.
func WholeNumber(b []byte) (float64, bool) {
	v, n := Number(b)
	return v, n > 0 && n == len(b)
}

// Integer is wholeNumber restricted to counts, which engines print without a fraction: all of b
// digits, at most maxDigits of them (its value on failure is 0; callers ignore it). One pass
// instead of a search for '.' before number: analyze of the chatty corpus 3,799 → 3,721 M
// instructions, the mixed corpus 2,552 → 2,528 M (cachegrind).
func Integer(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > maxDigits {
		return 0, false
	}
	var mant uint64
	for _, c := range b {
		if c-'0' > 9 {
			return 0, false
		}
		mant = mant*10 + uint64(c-'0')
	}
	return float64(mant), true
}

func IsWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.'
}

func IsDigit(c byte) bool { return c >= '0' && c <= '9' }

// DigitsAt reads exactly n digits at b[i:], for fixed-width timestamp parts.
func DigitsAt(b []byte, i, n int) (int, bool) {
	if i < 0 || i+n > len(b) {
		return 0, false
	}
	v := 0
	for _, c := range b[i : i+n] {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// TwoDigits is DigitsAt(b, i, 2) without the loop: timestamps are made of two-digit parts, and
// an engine line's prefix holds a dozen of them.
func TwoDigits(b []byte, i int) (int, bool) {
	if i < 0 || i+2 > len(b) {
		return 0, false
	}
	d0, d1 := b[i]-'0', b[i+1]-'0'
	return int(d0)*10 + int(d1), d0 <= 9 && d1 <= 9
}

// TrimSpace trims ASCII blanks without the Unicode tables of bytes.TrimSpace.
func TrimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}
