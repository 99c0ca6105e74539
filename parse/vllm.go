package parse

import "github.com/specwatch/specwatch/parse/internal/lex"

// trimDot drops the full stop vLLM v0 puts at the end of its lines ("... 0.0%.").
func trimDot(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '.' {
		return b[:len(b)-1]
	}
	return b
}

// vllmEngine parses the periodic engine statistics line of v1 ("Engine 000: Avg prompt
// throughput: ...") and v0 ("Avg prompt throughput: ..., Swapped: 0 reqs, ...").
func vllmEngine(b []byte, s *Sample) Result {
	s.Kind = KindDecode
	it := fieldIter{b: trimDot(b), sep: ','}
	if r := readFields(&it, s, &engineRecord); r != Matched {
		return r
	}
	if !s.Has(GenTPS) || !s.Has(Running) || !s.Has(KVUsage) {
		return malformed(s, "vllm engine: missing generation throughput, Running or GPU KV cache usage")
	}
	return Matched
}

var engineRecord = fieldRecord{fragment: "vllm engine: fragment without key", bad: "vllm engine: bad value", dup: "vllm engine: duplicated key", reader: readEngine}

// engineField reads one field of the record; see fieldReader.
func engineField(key, val []byte) (f Field, x float64, ok, known bool) {
	switch string(key) {
	case "Avg prompt throughput":
		f = PromptTPS
		x, ok = withUnit(val, "tokens/s")
	case "Avg generation throughput":
		f = GenTPS
		x, ok = withUnit(val, "tokens/s")
	case "Running":
		f = Running
		x, ok = withUnit(val, "reqs")
	case "Waiting", "Pending":
		f = Queue
		x, ok = withUnit(val, "reqs")
	case "GPU KV cache usage":
		f = KVUsage
		x, ok = rate(val)
	default:
		return 0, 0, false, false
	}
	return f, x, ok, true
}

// vllmSpec parses the three generations of v1's "SpecDecoding metrics:" line. The
// per-position list contains ", " itself, so it is read number by number, not split.
func vllmSpec(b []byte, s *Sample) Result {
	s.Kind = KindSpec
	it := fieldIter{b: b, sep: ','}
	if r := readFields(&it, s, &specRecord); r != Matched {
		return r
	}
	if !s.Has(Accepted) || !s.Has(Drafted) {
		return malformed(s, "vllm spec: missing Accepted or Drafted")
	}
	// Accepted > Drafted is kept, not refused: that contradiction is what metrics_inconsistent
	// reports, so it must reach the model.
	return Matched
}

var specRecord = fieldRecord{fragment: "vllm spec: fragment without key", bad: "vllm spec: bad value", dup: "vllm spec: duplicated key", reader: readSpec}

// specField reads one field of the record; see fieldReader.
func specField(it *fieldIter, s *Sample, key, val []byte) (f Field, x float64, ok, known bool) {
	switch string(key) {
	case "Draft acceptance rate", "Avg Draft acceptance rate":
		f = AcceptRate
		x, ok = rate(val)
	case "Mean acceptance length":
		var absent bool
		x, absent, ok = commitLen(val)
		if absent {
			return 0, 0, false, false
		}
		f = Commit
	case "Accepted":
		f = Accepted
		x, ok = withUnit(val, "tokens")
	case "Drafted":
		f = Drafted
		x, ok = withUnit(val, "tokens")
	case "Accepted throughput":
		f = AcceptedTPS
		x, ok = withUnit(val, "tokens/s")
	case "Drafted throughput":
		f = DraftedTPS
		x, ok = withUnit(val, "tokens/s")
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

// perPosition reads "0.750, 0.625, 0.500" from the current value and moves it past the list.
func perPosition(it *fieldIter, s *Sample) bool {
	n, end, ok := lex.Rates(it.b, it.valStart, s.PerPos[:])
	if !ok || (end < len(it.b) && it.b[end] != ',') {
		return false
	}
	s.NPos, it.pos = n, end
	return true
}

// vllmSpecV0 parses v0's "Speculative metrics:" line. It prints no commit length; the mean
// emitted per verify step follows from its counters: emitted / (draft tokens / k).
func vllmSpecV0(b []byte, s *Sample) Result {
	s.Kind = KindSpec
	it := fieldIter{b: trimDot(b), sep: ','}
	if r := readFields(&it, s, &specV0Record); r != Matched {
		return r
	}
	if !s.Has(Accepted) || !s.Has(Drafted) || !s.Has(Emitted) || !s.Has(SpecTokens) {
		return malformed(s, "vllm spec v0: missing counters")
	}
	if k, d := s.Value(SpecTokens), s.Value(Drafted); k > 0 && d > 0 {
		if c := s.Value(Emitted) * k / d; c >= 1 {
			s.Set(Commit, c)
		}
	}
	return Matched
}

var specV0Record = fieldRecord{fragment: "vllm spec v0: fragment without key", bad: "vllm spec v0: bad value", dup: "vllm spec v0: duplicated key", reader: readSpecV0}

// specV0Field reads one field of the record; see fieldReader.
func specV0Field(key, val []byte) (f Field, x float64, ok, known bool) {
	switch string(key) {
	case "Draft acceptance rate":
		f = AcceptRate
		x, ok = rate(val)
	case "Number of speculative tokens":
		f = SpecTokens
		x, ok = lex.Integer(val)
	case "Number of accepted tokens":
		f = Accepted
		x, ok = lex.Integer(val)
	case "Number of draft tokens", "Number of draft tokens tokens":
		f = Drafted
		x, ok = lex.Integer(val)
	case "Number of emitted tokens":
		f = Emitted
		x, ok = lex.Integer(val)
	default:
		return 0, 0, false, false
	}
	return f, x, ok, true
}
