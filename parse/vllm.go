package parse

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
	for {
		key, val, more := it.next()
		if !more {
			break
		}
		if val == nil {
			return malformed(s, "vllm engine: fragment without key")
		}
		var f Field
		var x float64
		var ok bool
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
			continue
		}
		if !ok {
			return malformed(s, "vllm engine: bad value")
		}
		if !set(s, f, x) {
			return malformed(s, "vllm engine: duplicated key")
		}
	}
	if !s.Has(GenTPS) || !s.Has(Running) || !s.Has(KVUsage) {
		return malformed(s, "vllm engine: missing generation throughput, Running or GPU KV cache usage")
	}
	return Matched
}

// vllmSpec parses the three generations of v1's "SpecDecoding metrics:" line. The
// per-position list contains ", " itself, so it is read number by number, not split.
func vllmSpec(b []byte, s *Sample) Result {
	s.Kind = KindSpec
	it := fieldIter{b: b, sep: ','}
	for {
		key, val, more := it.next()
		if !more {
			break
		}
		if val == nil {
			return malformed(s, "vllm spec: fragment without key")
		}
		var f Field
		var x float64
		var ok bool
		switch string(key) {
		case "Draft acceptance rate", "Avg Draft acceptance rate":
			f = AcceptRate
			x, ok = rate(val)
		case "Mean acceptance length":
			var absent bool
			x, absent, ok = commitLen(val)
			if absent {
				continue
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
			if s.NPos > 0 {
				return malformed(s, "vllm spec: duplicated per-position list")
			}
			if !perPosition(&it, s) {
				return malformed(s, "vllm spec: bad per-position list")
			}
			continue
		default:
			continue
		}
		if !ok {
			return malformed(s, "vllm spec: bad value")
		}
		if !set(s, f, x) {
			return malformed(s, "vllm spec: duplicated key")
		}
	}
	if !s.Has(Accepted) || !s.Has(Drafted) {
		return malformed(s, "vllm spec: missing Accepted or Drafted")
	}
	// Accepted > Drafted is kept, not refused: that contradiction is what metrics_inconsistent
	// reports, so it must reach the model.
	return Matched
}

// perPosition reads "0.750, 0.625, 0.500" from the current value and moves it past the list.
func perPosition(it *fieldIter, s *Sample) bool {
	b := it.b
	i := it.valStart
	for {
		x, n := number(b[i:])
		if n == 0 || x > 1 || s.NPos == MaxPerPosition {
			return false
		}
		s.PerPos[s.NPos] = x
		s.NPos++
		i += n
		// Another value follows only as ", <digit>"; anything else ends the list.
		if i+2 < len(b) && b[i] == ',' && b[i+1] == ' ' && isDigit(b[i+2]) {
			i += 2
			continue
		}
		break
	}
	if i < len(b) && b[i] != ',' {
		return false
	}
	it.pos = i
	return true
}

// vllmSpecV0 parses v0's "Speculative metrics:" line. It prints no commit length; the mean
// emitted per verify step follows from its counters: emitted / (draft tokens / k).
func vllmSpecV0(b []byte, s *Sample) Result {
	s.Kind = KindSpec
	it := fieldIter{b: trimDot(b), sep: ','}
	for {
		key, val, more := it.next()
		if !more {
			break
		}
		if val == nil {
			return malformed(s, "vllm spec v0: fragment without key")
		}
		var f Field
		var x float64
		var ok bool
		switch string(key) {
		case "Draft acceptance rate":
			f = AcceptRate
			x, ok = rate(val)
		case "Number of speculative tokens":
			f = SpecTokens
			x, ok = integer(val)
		case "Number of accepted tokens":
			f = Accepted
			x, ok = integer(val)
		case "Number of draft tokens", "Number of draft tokens tokens":
			f = Drafted
			x, ok = integer(val)
		case "Number of emitted tokens":
			f = Emitted
			x, ok = integer(val)
		default:
			continue
		}
		if !ok {
			return malformed(s, "vllm spec v0: bad value")
		}
		if !set(s, f, x) {
			return malformed(s, "vllm spec v0: duplicated key")
		}
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
