package record

import (
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

// strEnd consumes a string without decoding it and reports whether it had escapes. Messages
// are most of a line, so plain bytes are skipped eight at a time.
func (s *jsonScanner) strEnd() (bool, error) {
	b := s.b
	esc := false
	for i := s.i + 1; ; {
		for i+8 <= len(b) && plain8(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		if i >= len(b) {
			return esc, ErrCut
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return esc, nil
		case c == '\\':
			esc = true
			i++
			if i == len(b) {
				return esc, ErrCut
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				for k := 1; k <= 4; k++ {
					if i+k == len(b) {
						return esc, ErrCut
					}
					if hexVal(b[i+k]) < 0 {
						return esc, ErrSyntax
					}
				}
				i += 5
			default:
				return esc, ErrSyntax
			}
		case c < 0x20:
			return esc, ErrSyntax
		default:
			i++
		}
	}
}

// plain8 reports whether none of the eight bytes in x is a quote, a backslash or a control
// character (the SWAR "has a byte less than n / equal to n" tests, exact for existence).
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	less := (x - ones*0x20) & ^x
	quote := x ^ (ones * '"')
	quote = (quote - ones) & ^quote
	bslash := x ^ (ones * '\\')
	bslash = (bslash - ones) & ^bslash
	return (less|quote|bslash)&highs == 0
}

// str reads a string at s.i. Without escapes the value points into the line; with them it is
// decoded into dst. Invalid UTF-8 passes through untouched: the bytes are the message.
func (s *jsonScanner) str(dst []byte) ([]byte, []byte, error) {
	if s.i == len(s.b) {
		return nil, dst, ErrCut
	}
	if s.b[s.i] != '"' {
		return nil, dst, ErrSyntax
	}
	start := s.i + 1
	esc, err := s.strEnd()
	if err != nil {
		return nil, dst, err
	}
	raw := s.b[start : s.i-1]
	if !esc {
		return raw, dst, nil
	}
	dst = dst[:0]
	for k := 0; k < len(raw); k++ {
		c := raw[k]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		k++
		switch raw[k] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			ru := hex4(raw[k+1:])
			k += 4
			if utf16.IsSurrogate(ru) {
				// A pair becomes one rune; a lone half becomes U+FFFD, as in encoding/json.
				if k+6 < len(raw) && raw[k+1] == '\\' && raw[k+2] == 'u' {
					if r2 := utf16.DecodeRune(ru, hex4(raw[k+3:])); r2 != utf8.RuneError {
						ru = r2
						k += 6
					} else {
						ru = utf8.RuneError
					}
				} else {
					ru = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, ru)
		default: // '"', '\\', '/'
			dst = append(dst, raw[k])
		}
	}
	return dst, dst, nil
}

// hex4 decodes four hex digits already checked by strEnd.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		r = r<<4 | rune(hexVal(c))
	}
	return r
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c - 'a' + 10)
	case c >= 'A' && c <= 'F':
		return int(c - 'A' + 10)
	}
	return -1
}
