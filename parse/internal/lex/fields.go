package lex

import "bytes"

// Fields walks "key: value" pairs separated by sep and a space (", " for most lines, ". " for
// SGLang's oldest prefill line). It never splits inside a key, so keys such as
// "gen throughput (token/s)" or "est. decode TFLOPS/s (per GPU)" stay whole, and it exposes its
// position so that a caller can take over for a value that itself contains the separator
// (vLLM's per-position list).
type Fields struct {
	B        []byte
	Pos      int
	Sep      byte
	ValStart int  // where the last value began in B
	Tight    bool // a colon right before a digit also ends a key ("Avg time/tok:149.4 ms")
}

// Next returns the next key and value. A fragment with no ": " comes back as a key with a nil
// value: callers treat it as damage. Separators and colons are found with vectorised byte
// searches: this loop is most of a decode line's cost.
func (it *Fields) Next() (key, val []byte, ok bool) {
	b := it.B
	i := it.Pos
	for i < len(b) && (b[i] == ' ' || b[i] == it.Sep) {
		i++
	}
	if i >= len(b) {
		it.Pos = i
		return nil, nil, false
	}
	end := i
	for {
		j := bytes.IndexByte(b[end:], it.Sep)
		if j < 0 {
			end = len(b)
			break
		}
		end += j
		if end+1 == len(b) || b[end+1] == ' ' {
			break
		}
		end++
	}
	it.Pos = end
	colon := -1
	for k := i; k < end; {
		j := bytes.IndexByte(b[k:end], ':')
		if j < 0 {
			break
		}
		k += j
		if k+1 == end || b[k+1] == ' ' {
			colon = k
			break
		}
		k++
	}
	if colon < 0 && it.Tight {
		if k := bytes.IndexByte(b[i:end], ':'); k >= 0 && i+k+1 < end && IsDigit(b[i+k+1]) {
			colon = i + k
		}
	}
	if colon < 0 {
		return b[i:end], nil, true
	}
	v := colon + 1
	for v < end && b[v] == ' ' {
		v++
	}
	it.ValStart = v
	return b[i:colon], TrimSpace(b[v:end]), true
}

// Pairs walks llama.cpp's "key = value" pairs separated by ", ". A value ends at a ", " that
// is not followed by a digit, so lists ("(0.805, 0.632)") and the duration triple
// ("0.005, 325.555, 0.114 ms") stay whole. ok is false for text that is not a pair.
type Pairs struct {
	B   []byte
	Pos int
}

func (it *Pairs) Next() (key, val []byte, more, ok bool) {
	b, i := it.B, it.Pos
	if bytes.HasPrefix(b[i:], []byte(", ")) {
		i += 2
	}
	if i >= len(b) {
		return nil, nil, false, true
	}
	j := bytes.Index(b[i:], []byte(" = "))
	if j < 0 || bytes.Contains(b[i:i+j], []byte(", ")) {
		return nil, nil, true, false
	}
	key = TrimSpace(b[i : i+j])
	v := i + j + len(" = ")
	for v < len(b) && b[v] == ' ' {
		v++
	}
	e := v
	for {
		k := bytes.Index(b[e:], []byte(", "))
		if k < 0 {
			e = len(b)
			break
		}
		e += k
		if e+2 >= len(b) || !IsDigit(b[e+2]) {
			break
		}
		e += 2
	}
	it.Pos = e
	return key, b[v:e], true, true
}
