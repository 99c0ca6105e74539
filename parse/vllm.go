package parse

import (
	"math"

	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/sample"
)

// trimDot drops the full stop vLLM v0 puts at the end of its lines ("... 0.0%.").
func trimDot(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '.' {
		return b[:len(b)-1]
	}
	return b
}

// vllmEngine parses the periodic engine statistics line of v1 ("Engine 000: Avg prompt
// throughput: ...") and v0 ("Avg prompt throughput: ..., Swapped: 0 reqs, ...").
func vllmEngine(b []byte, s *Record) sample.Result {
	s.Kind = sample.KindDecode
	// Forks add fields in the same shape, some without the blank after the colon
	// ("Avg time/tok:149.4 ms"): tight lets them through, unread.
	it := lex.Fields{B: trimDot(b), Sep: ',', Tight: true}
	if r := readFields(&it, s, &engineRecord); r != sample.Matched {
		return r
	}
	// v0.7.0's line ends at Waiting (no KV usage yet, no "Engine 000: " either): the KV figure
	// is optional there, and the queue, which every version prints, shows that the line is whole.
	if !s.Has(sample.GenTPS) || !s.Has(sample.Running) || !s.Has(sample.Queue) || !s.Has(sample.KVUsage) && len(s.Rank) > 0 {
		return malformed(s, "vllm engine: missing generation throughput, Running, Waiting or GPU KV cache usage")
	}
	return sample.Matched
}

var engineRecord = fieldRecord{fragment: "vllm engine: fragment without key", bad: "vllm engine: bad value", dup: "vllm engine: duplicated key", reader: readEngine}

// engineField reads one field of the record; see fieldReader.
func engineField(key, val []byte) (f sample.Field, x float64, ok, known bool) {
	switch string(key) {
	case "Avg prompt throughput":
		f = sample.PromptTPS
		x, ok = lex.WithUnit(val, "tokens/s")
	case "Avg generation throughput":
		f = sample.GenTPS
		x, ok = lex.WithUnit(val, "tokens/s")
	case "Running":
		f = sample.Running
		x, ok = lex.WithUnit(val, "reqs")
	case "Waiting", "Pending":
		f = sample.Queue
		x, ok = lex.WithUnit(val, "reqs")
	case "GPU KV cache usage":
		f = sample.KVUsage
		x, ok = lex.Rate(val)
	default:
		return 0, 0, false, false
	}
	return f, x, ok, true
}

// vllmSpec parses the three generations of v1's "SpecDecoding metrics:" line. The
// per-position list contains ", " itself, so it is read number by number, not split.
func vllmSpec(b []byte, s *Record) sample.Result {
	s.Kind = sample.KindSpec
	it := lex.Fields{B: b, Sep: ','}
	if r := readFields(&it, s, &specRecord); r != sample.Matched {
		return r
	}
	if !s.Has(sample.Accepted) || !s.Has(sample.Drafted) {
		return malformed(s, "vllm spec: missing Accepted or Drafted")
	}
	if c, ok := s.Get(sample.Commit); ok && !bonusIncluded(s, c) {
		return malformed(s, "vllm spec: mean acceptance length below 1 and not the per-position sum")
	}
	// Accepted > Drafted is kept, not refused: that contradiction is what metrics_inconsistent
	// reports, so it must reach the model.
	return sample.Matched
}

var specRecord = fieldRecord{fragment: "vllm spec: fragment without key", bad: "vllm spec: bad value", dup: "vllm spec: duplicated key", reader: readSpec}

// specField reads one field of the record; see fieldReader.
func specField(it *lex.Fields, s *Record, key, val []byte) (f sample.Field, x float64, ok, known bool) {
	switch string(key) {
	case "Draft acceptance rate", "Avg Draft acceptance rate":
		f = sample.AcceptRate
		x, ok = lex.Rate(val)
	case "Mean acceptance length":
		// Read as printed; vllmSpec checks it against the per-position rates, since v0.8.5
		// printed it without the bonus token (0.45 is a real value there).
		x, ok = lex.WholeNumber(val)
		if ok && x == 0 {
			return 0, 0, false, false // no verify step in the interval
		}
		f = sample.Commit
		ok = ok && x <= maxCommit
	case "Accepted":
		f = sample.Accepted
		x, ok = lex.WithUnit(val, "tokens")
	case "Drafted":
		f = sample.Drafted
		x, ok = lex.WithUnit(val, "tokens")
	case "Accepted throughput":
		f = sample.AcceptedTPS
		x, ok = lex.WithUnit(val, "tokens/s")
	case "Drafted throughput":
		f = sample.DraftedTPS
		x, ok = lex.WithUnit(val, "tokens/s")
	case "Per-position acceptance rate":
		switch {
		case s.NPos > 0:
			s.Why = "vllm spec: duplicated per-position list"
		case !perPosition(it, s):
			s.Why = "vllm spec: bad per-position list"
		default:
			return numFields, 0, true, true
		}
		return 0, 0, false, true
	default:
		return 0, 0, false, false
	}
	return f, x, ok, true
}

// bonusIncluded makes the commit length include the bonus token. vLLM v0.8.5 printed the mean
// acceptance length as accepted / drafts, which is exactly the sum of the per-position rates;
// from v0.9.0 it is 1 + that sum. The two differ by 1, far more than the rounding of the printed
// figures (0.005 for the mean, 0.0005 per rate), so the list tells them apart. Without a list
// only a mean below 1 is known to lack the bonus, and by how much is unknown: false.
func bonusIncluded(s *Record, c float64) bool {
	var sum float64
	for _, r := range s.PerPos[:s.NPos] {
		sum += r
	}
	if tol := 0.005 + 0.0005*float64(s.NPos) + 1e-9; s.NPos > 0 && math.Abs(c-sum) <= tol {
		s.Set(sample.Commit, c+1)
		return c+1 <= maxCommit
	}
	return c >= 1
}

// vllmMaxPos bounds vLLM's per-position list, 2 to 15 values: more is two lines glued.
const vllmMaxPos = 16

// perPosition reads "0.750, 0.625, 0.500" from the current value and moves it past the list.
func perPosition(it *lex.Fields, s *Record) bool {
	b := it.B
	i := it.ValStart
	for {
		x, n := lex.Number(b[i:])
		if n == 0 || x > 1 || s.NPos == vllmMaxPos {
			return false
		}
		s.PerPos[s.NPos] = x
		s.NPos++
		i += n
		// Another value follows only as ", <digit>"; anything else ends the list.
		if i+2 < len(b) && b[i] == ',' && b[i+1] == ' ' && lex.IsDigit(b[i+2]) {
			i += 2
			continue
		}
		break
	}
	if i < len(b) && b[i] != ',' {
		return false
	}
	it.Pos = i
	return true
}

// vllmSpecV0 parses v0's "Speculative metrics:" line. It prints no commit length; the mean
// emitted per verify step follows from its counters: emitted / (draft tokens / k).
func vllmSpecV0(b []byte, s *Record) sample.Result {
	s.Kind = sample.KindSpec
	b = lex.TrimSpace(b)
	it := lex.Fields{B: trimDot(b), Sep: ','}
	if r := readFields(&it, s, &specV0Record); r != sample.Matched {
		return r
	}
	// v1's first spec line (v0.8.2) has the title and the rate but only two counters, and ends
	// with ", ": no commit length can be derived from it. A v0 line ends with '.'; one without
	// every counter was cut.
	short := len(b) > 0 && b[len(b)-1] == ',' && !s.Has(sample.SpecTokens)
	if !s.Has(sample.Accepted) || !s.Has(sample.Drafted) || !short && (!s.Has(sample.Emitted) || !s.Has(sample.SpecTokens)) {
		return malformed(s, "vllm spec v0: missing counters")
	}
	if k, d := s.Value(sample.SpecTokens), s.Value(sample.Drafted); k > 0 && d > 0 {
		if c := s.Value(sample.Emitted) * k / d; c >= 1 {
			s.Set(sample.Commit, c)
		}
	}
	return sample.Matched
}

var specV0Record = fieldRecord{fragment: "vllm spec v0: fragment without key", bad: "vllm spec v0: bad value", dup: "vllm spec v0: duplicated key", reader: readSpecV0}

// specV0Field reads one field of the record; see fieldReader.
func specV0Field(key, val []byte) (f sample.Field, x float64, ok, known bool) {
	switch string(key) {
	case "Draft acceptance rate":
		f = sample.AcceptRate
		x, ok = lex.Rate(val)
	case "Number of speculative tokens":
		f = sample.SpecTokens
		x, ok = lex.Integer(val)
	case "Number of accepted tokens":
		f = sample.Accepted
		x, ok = lex.Integer(val)
	case "Number of draft tokens", "Number of draft tokens tokens":
		f = sample.Drafted
		x, ok = lex.Integer(val)
	case "Number of emitted tokens", "Number of emitted tokens tokens":
		f = sample.Emitted
		x, ok = lex.Integer(val)
	default:
		return 0, 0, false, false
	}
	return f, x, ok, true
}
