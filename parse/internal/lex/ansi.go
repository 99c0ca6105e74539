package lex

import "bytes"

// replacement is U+FFFD in UTF-8: some pipelines turn an ANSI escape byte into it, leaving
// "\uFFFD[1;36m" behind, which must be stripped like the real escape.
var replacement = []byte("\xef\xbf\xbd")

// HasANSI looks for an escape or a replacement character. Most lines have neither, and a byte
// search for the replacement's first byte rules it out more cheaply than a substring search.
func HasANSI(b []byte) bool {
	return bytes.IndexByte(b, 0x1b) >= 0 || bytes.IndexByte(b, replacement[0]) >= 0 && bytes.Contains(b, replacement)
}

// StripANSI appends b to dst without CSI sequences ("ESC [ params letter"), so that colour codes
// around vLLM's level or SGLang's prefix do not hide them from the prefix walk.
func StripANSI(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		n := 0
		switch {
		case b[i] == 0x1b:
			n = 1
		case bytes.HasPrefix(b[i:], replacement):
			n = len(replacement)
		}
		if n == 0 || i+n >= len(b) || b[i+n] != '[' {
			if n == 1 { // a lone ESC: drop it
				i++
				continue
			}
			dst = append(dst, b[i])
			i++
			continue
		}
		j := i + n + 1
		for j < len(b) && (IsDigit(b[j]) || b[j] == ';') {
			j++
		}
		if j < len(b) && (b[j] >= 'A' && b[j] <= 'Z' || b[j] >= 'a' && b[j] <= 'z') {
			i = j + 1
			continue
		}
		dst = append(dst, b[i])
		i++
	}
	return dst
}
