package parse

import "bytes"

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
// bytes, handed to the same field reader.
type layout [][]byte

func keys(ks ...string) layout {
	l := make(layout, len(ks))
	for i, k := range ks {
		l[i] = []byte(k)
	}
	return l
}

var (
	// SGLang's current decode line, with speculative decoding and without.
	decodeLayouts = [...]layout{
		keys("#running-req", "#token", "token usage", "accept len", "accept rate", "cuda graph",
			"gen throughput (token/s)", "#queue-req"),
		keys("#running-req", "#token", "token usage", "cuda graph", "gen throughput (token/s)", "#queue-req"),
	}
	prefillLayouts = [...]layout{
		keys("#new-seq", "#new-token", "#cached-token", "token usage", "#running-req", "#queue-req",
			"#pending-token", "cuda graph", "input throughput (token/s)"),
	}
)

// readLayout reads the ", "-separated fields of b from i if they follow one of layouts, and
// reports whether it did; when it did not, s holds no field (readFields starts afresh).
func readLayout(b []byte, i int, layouts []layout, rec *fieldRecord, s *Sample) bool {
	for _, l := range layouts {
		if readOneLayout(b, i, l, rec, s) {
			return true
		}
		for f := Field(0); f < numFields; f++ {
			if s.Has(f) {
				s.vals[f] = 0
			}
		}
		s.has = 0
	}
	return false
}

func readOneLayout(b []byte, pos int, l layout, rec *fieldRecord, s *Sample) bool {
	for k, key := range l {
		// readFields skips any run of blanks and commas between fields: this reads one ", ".
		if k > 0 {
			if pos+1 >= len(b) || b[pos] != ',' {
				return false
			}
			pos++
		}
		if pos >= len(b) || b[pos] != ' ' {
			return false
		}
		pos++
		ks, vs := pos, pos+len(key)+2
		if vs >= len(b) || !bytes.Equal(b[ks:vs-2], key) || b[vs-2] != ':' || b[vs-1] != ' ' {
			return false
		}
		// The value ends at the next comma. It is readFields' value when that comma is followed
		// by a blank (readFields ends a field at ", ", and the value holds no comma before it),
		// or, for the last field, when there is none; and when the value has no blank at either
		// end (readFields trims them).
		j := bytes.IndexByte(b[vs:], ',')
		end := vs + j
		if k == len(l)-1 {
			if j >= 0 {
				return false
			}
			end = len(b)
		} else if j < 0 || end+1 >= len(b) || b[end+1] != ' ' {
			return false
		}
		if end == vs || isBlank(b[vs]) || isBlank(b[end-1]) {
			return false
		}
		f, x, ok, known := rec.reader.read(nil, s, b[ks:vs-2], b[vs:end])
		switch {
		case !known:
		case !ok || f == numFields || !set(s, f, x):
			s.Why = ""
			return false
		}
		pos = end
	}
	return true
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
