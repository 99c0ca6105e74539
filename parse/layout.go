package parse

import (
	"encoding/binary"
	"math/bits"

	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/sample"
)

// layout is a record's keys in the order an engine version prints them, each after ", " (the
// first after a blank) and before ": ". readLayout reads a line of exactly that shape with one
// byte search per field, where fieldIter needs two searches and two scanning loops. Decode and
// prefill lines are 40 % of the chatty corpus and most of its parsing time: the layouts took
// BenchmarkSGLangDecodeISO to 0.86× CPU time (median of 11 alternated runs; instructions 6,440
// → 6,158 per line, cachegrind), BenchmarkSGLangPrefillISO from 6,995 to 6,695 instructions,
// BenchmarkChatty to 0.90× CPU time (3,333 → 3,217 instructions per line) and BenchmarkMixed
// from 2,051 to 2,022 instructions per line.
// Any other shape (older versions, extra or renamed fields, odd spacing, damage) falls back to
// readFields, so every line still gets the result readFields gives it: readLayout only accepts
// a line when each field it reads is the field readFields would read, with the same key and value
// bytes, handed to the same value reader.
//
// Each key is resolved once, when the layout is built, to its field and value reader (the
// record's decodeKey or prefillKey, which its field reader also goes through), and is matched
// with its separators as one string compared 8 bytes at a time; the value's end is found by a
// loop over its few bytes. Per line this spares a string switch per field and three calls
// (memequal, IndexByte and the field reader), whose register spills cost more than their
// work: readOneLayout and its callees were 3,580 of BenchmarkSGLangDecodeISO's 6,169
// instructions. With it (and integer's single pass) BenchmarkSGLangDecodeISO takes 4,874
// instructions and 0.70× the CPU time (median of 7 alternated runs), BenchmarkSGLangPrefillISO
// 6,713 → 5,109 instructions, BenchmarkChatty 0.86× CPU time; analyze of the chatty corpus
// 4,272 → 3,799 M instructions, the mixed corpus 2,675 → 2,552 M (cachegrind).
type layout []layoutKey

// layoutKey is one key of a layout with its separators, ", key: " (" key: " for the first).
type layoutKey struct {
	text  string
	n     int       // len(text), 8 to 32
	words [4]uint64 // text's first len(text)/8 whole 8-byte words, little-endian
	last  uint64    // text's last 8 bytes (overlapping the words when len(text) % 8 != 0)
	field sample.Field
	kind  valueKind
}

func keys(fieldOf func([]byte) (sample.Field, valueKind), ks ...string) layout {
	l := make(layout, len(ks))
	for i, k := range ks {
		text := ", " + k + ": "
		if i == 0 {
			text = text[1:]
		}
		if len(text) < 8 || len(text) > 32 {
			panic("parse: layout key " + k + " is not 8 to 32 bytes with its separators")
		}
		lk := layoutKey{text: text, n: len(text), last: binary.LittleEndian.Uint64([]byte(text[len(text)-8:]))}
		for j := 0; j+8 <= len(text); j += 8 {
			lk.words[j/8] = binary.LittleEndian.Uint64([]byte(text[j : j+8]))
		}
		lk.field, lk.kind = fieldOf([]byte(k))
		l[i] = lk
	}
	return l
}

var (
	// SGLang's current decode line, with speculative decoding and without.
	decodeLayouts = [...]layout{
		keys(decodeKey, "#running-req", "#token", "token usage", "accept len", "accept rate", "cuda graph",
			"gen throughput (token/s)", "#queue-req"),
		keys(decodeKey, "#running-req", "#token", "token usage", "cuda graph", "gen throughput (token/s)", "#queue-req"),
	}
	prefillLayouts = [...]layout{
		keys(prefillKey, "#new-seq", "#new-token", "#cached-token", "token usage", "#running-req", "#queue-req",
			"#pending-token", "cuda graph", "input throughput (token/s)"),
	}
)

// readLayout reads the ", "-separated fields of b from i if they follow one of layouts, and
// reports whether it did; when it did not, s holds no field (readFields starts afresh).
func readLayout(b []byte, i int, layouts []layout, s *Record) bool {
	for _, l := range layouts {
		if readOneLayout(b, i, l, s) {
			return true
		}
		s.ClearFields()
	}
	return false
}

func readOneLayout(b []byte, pos int, l layout, s *Record) bool {
	for k := range l {
		key := &l[k]
		// readFields skips any run of blanks and commas between fields: this reads one ", ",
		// then the key and its ": " (key.text: its first and last words, and the words between
		// for a key longer than 16 bytes), and wants a value after them.
		n := key.n
		vs := pos + n
		if pos < 0 || vs >= len(b) {
			return false
		}
		w := b[pos:vs]
		if binary.LittleEndian.Uint64(w) != key.words[0] || binary.LittleEndian.Uint64(w[n-8:]) != key.last {
			return false
		}
		for j := 8; j+8 < n; j += 8 {
			if binary.LittleEndian.Uint64(w[j:]) != key.words[j/8] {
				return false
			}
		}
		// The value ends at the next comma. It is readFields' value when that comma is followed
		// by a blank (readFields ends a field at ", ", and the value holds no comma before it),
		// or, for the last field, when there is none; and when the value has no blank at either
		// end (readFields trims them).
		end := commaFrom(b, vs)
		if k == len(l)-1 {
			if end < len(b) {
				return false
			}
		} else if end+1 >= len(b) || b[end+1] != ' ' {
			return false
		}
		if end == vs || isBlank(b[vs]) || isBlank(b[end-1]) {
			return false
		}
		if key.kind == intValue {
			// Counts, half of the fields, are read here rather than through readValue's switch
			// (the same integer): analyze 3,523 → 3,479 M instructions on the chatty corpus,
			// 2,452 → 2,439 M on the mixed one (cachegrind). Rates read here too gained nothing.
			if x, ok := lex.Integer(b[vs:end]); !ok || !set(s, key.field, x) {
				s.Why = ""
				return false
			}
		} else if key.kind != noValue {
			f, x, ok, known := readValue(key.field, key.kind, b[vs:end])
			switch {
			case !known:
			case !ok || !set(s, f, x):
				s.Why = ""
				return false
			}
		}
		pos = end
	}
	return true
}

// commaFrom returns the index of the first ',' in b at or after i, or len(b). Values are short,
// so it first looks at the 8 bytes from i at once (a zero byte of x^",,,,,,,," is a comma; the
// lowest flagged byte of the classic test is always a true one), then byte by byte: on the
// chatty corpus the byte loop alone was 129 M of analyze's 3,557 M instructions, 78 M this way
// (analyze 3,548 M; cachegrind).
func commaFrom(b []byte, i int) int {
	if i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:]) ^ 0x2c2c2c2c2c2c2c2c
		if t := (x - 0x0101010101010101) &^ x & 0x8080808080808080; t != 0 {
			return i + bits.TrailingZeros64(t)/8
		}
		i += 8
	}
	for j, c := range b[i:] {
		if c == ',' {
			return i + j
		}
	}
	return len(b)
}

// isBlank's first test rejects most bytes at once: values start and end with a digit or a letter.
func isBlank(c byte) bool { return c <= ' ' && (c == ' ' || c == '\t' || c == '\r' || c == '\n') }
