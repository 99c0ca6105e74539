package parse

import (
	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/sample"
)

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
	return x, false, x >= 1 && x <= maxCommit
}

// maxCommit bounds a commit length: no drafter proposes more than 63 tokens a step, so a larger
// figure is damage.
const maxCommit = 64

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
func (r recordReader) read(it *lex.Fields, s *Record, key, val []byte) (f sample.Field, x float64, ok, known bool) {
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
func readFields(it *lex.Fields, s *Record, rec *fieldRecord) sample.Result {
	for {
		key, val, more := it.Next()
		if !more {
			return sample.Matched
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
			return sample.Malformed
		case f != numFields && !set(s, f, x):
			return malformed(s, rec.dup)
		}
	}
}
