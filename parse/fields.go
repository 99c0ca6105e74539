package parse

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
)

// fieldIter walks "key: value" pairs separated by sep and a space (", " for most lines, ". " for
// SGLang's oldest prefill line). It never splits inside a key, so keys such as
// "gen throughput (token/s)" or "est. decode TFLOPS/s (per GPU)" stay whole, and it exposes its
// position so that a caller can take over for a value that itself contains the separator
// (vLLM's per-position list).
type fieldIter struct {
	b        []byte
	pos      int
	sep      byte
	valStart int // where the last value began in b
}

// next returns the next key and value. A fragment with no ": " comes back as a key with a nil
// value: callers treat it as damage. Separators and colons are found with vectorised byte
// searches: this loop is most of a decode line's cost.
func (it *fieldIter) next() (key, val []byte, ok bool) {
	b := it.b
	i := it.pos
	for i < len(b) && (b[i] == ' ' || b[i] == it.sep) {
		i++
	}
	if i >= len(b) {
		it.pos = i
		return nil, nil, false
	}
	end := i
	for {
		j := bytes.IndexByte(b[end:], it.sep)
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
	it.pos = end
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
	if colon < 0 {
		return b[i:end], nil, true
	}
	v := colon + 1
	for v < end && b[v] == ' ' {
		v++
	}
	it.valStart = v
	return b[i:colon], lex.TrimSpace(b[v:end]), true
}

// rate reads an acceptance or usage figure, either a fraction ("0.13") or a percentage
// ("62.5%"), and refuses anything outside [0, 1] after conversion.
func rate(v []byte) (float64, bool) {
	pct := len(v) > 0 && v[len(v)-1] == '%'
	if pct {
		v = v[:len(v)-1]
	}
	x, ok := lex.WholeNumber(v)
	if !ok {
		return 0, false
	}
	if pct {
		x /= 100
	}
	return x, x <= 1
}

// withUnit reads "96.4 tokens/s" or "2 reqs": a number, then exactly the expected unit (or none).
func withUnit(v []byte, unit string) (float64, bool) {
	x, n := lex.Number(v)
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

// boolean reads Python's True/False.
func boolean(v []byte) (float64, bool) {
	switch string(v) {
	case "True", "true":
		return 1, true
	case "False", "false":
		return 0, true
	}
	return 0, false
}

// commitLen reads a commit length. Its floor is 1 (the bonus token); a value below is damage.
// SGLang prints 0.00 when no verify step ran in the interval: that is "no figure", not a figure.
func commitLen(v []byte) (x float64, absent, ok bool) {
	x, ok = lex.WholeNumber(v)
	if !ok {
		return 0, false, false
	}
	if x == 0 {
		return 0, true, true
	}
	return x, false, x >= 1 && x <= 64
}

// fieldRecord is one "key: value" record shape: the reasons a damaged one is malformed, and
// which reader maps its keys to fields.
type fieldRecord struct {
	fragment, bad, dup string
	reader             recordReader
}

// recordReader selects a record's field reader. The readers are called directly from a switch
// rather than through a func value: an indirect call would make the iterator escape to the heap
// and cost an allocation per line.
type recordReader uint8

const (
	readDecode recordReader = iota
	readPrefill
	readEngine
	readSpec
	readSpecV0
)

// read maps one key to the field it carries and reads the value. known is false for a key the
// record may carry but specwatch does not read (extras are tolerated, order is free);
// f == numFields means the reader stored what it read itself (vLLM's per-position list). A
// reader that sets s.Why on failure chooses its own reason.
func (r recordReader) read(it *fieldIter, s *Sample, key, val []byte) (f Field, x float64, ok, known bool) {
	switch r {
	case readDecode:
		return decodeField(key, val)
	case readPrefill:
		return prefillField(key, val)
	case readEngine:
		return engineField(key, val)
	case readSpec:
		return specField(it, s, key, val)
	}
	return specV0Field(key, val)
}

// readFields is the loop every "key: value" record shares: a fragment without a key, a bad
// value and a repeated key (two records glued together) make the record malformed.
func readFields(it *fieldIter, s *Sample, rec *fieldRecord) Result {
	for {
		key, val, more := it.next()
		if !more {
			return Matched
		}
		if val == nil {
			return malformed(s, rec.fragment)
		}
		f, x, ok, known := rec.reader.read(it, s, key, val)
		switch {
		case !known:
		case !ok:
			if s.Why == "" {
				s.Why = rec.bad
			}
			return Malformed
		case f != numFields && !set(s, f, x):
			return malformed(s, rec.dup)
		}
	}
}
