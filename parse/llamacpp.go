package parse

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
)

// llamaCpp parses the server's per-request line in its three shapes (docs/formats.md has the
// builds that print each):
//
//	draft acceptance rate = 0.58824 (  600 accepted /  1020 generated)
//	draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.92, acceptance rate per position = (0.805, 0.632, 0.483)
//	draft acceptance = 0.76049 (  308 accepted /   405 generated), mean len =  2.52
//
// Its mean is 1 + accepted / verify steps: a commit length, bonus token included.
func llamaCpp(b []byte, s *Sample) Result {
	s.Kind = KindSpec
	i := len("draft acceptance ")
	switch {
	case bytes.HasPrefix(b[i:], []byte("rate = ")):
		i += len("rate = ")
	case bytes.HasPrefix(b[i:], []byte("= ")):
		i += len("= ")
	default:
		return malformed(s, "llama.cpp: bad lead")
	}
	x, n := lex.Number(b[i:])
	if n == 0 || x > 1 {
		return malformed(s, "llama.cpp: bad rate")
	}
	s.Set(AcceptRate, x)
	i += n
	acc, ok1 := lex.CountAfter(b, &i, " (", " accepted /")
	gen, ok2 := lex.CountAfter(b, &i, "", " generated)")
	if !ok1 || !ok2 {
		return malformed(s, "llama.cpp: bad counts")
	}
	s.Set(Accepted, acc)
	s.Set(Drafted, gen)
	it := lex.Pairs{B: b, Pos: i}
	for {
		key, val, more, ok := it.Next()
		if !ok {
			return malformed(s, "llama.cpp: fragment without key")
		}
		if !more {
			return Matched
		}
		switch string(key) {
		case "mean len", "mean acceptance length":
			if !llamaCommit(s, val) {
				return malformed(s, "llama.cpp: bad mean length")
			}
		case "acceptance rate per position":
			if !llamaPositions(s, val) {
				return malformed(s, "llama.cpp: bad per-position list")
			}
		}
	}
}

// llamaStats parses common_speculative's statistics line, one per drafting implementation,
// cumulative since the server started (hence EventTotals); the mean and the per-position list
// came with the 2026 builds, the durations only when the implementation times itself:
//
//	statistics     draft-eagle3: #calls(b,g,a) =    1     87     87, #gen drafts =     87, #acc drafts =    70, #gen tokens =    259, #acc tokens =   167, #mean acc len = 2.92, #acc rate/pos = (0.805, 0.632, 0.483), dur(b,g,a) = 0.005, 325.555, 0.114 ms
//
// Without a printed mean the commit length is 1 + accepted tokens / accept calls, the mean's
// own definition.
func llamaStats(b []byte, s *Sample) Result {
	s.Kind, s.Event = KindSpec, EventTotals
	it := lex.Pairs{B: b}
	calls := -1.0
	for {
		key, val, more, ok := it.Next()
		if !ok {
			return malformed(s, "llama.cpp statistics: fragment without key")
		}
		if !more {
			break
		}
		good := true
		switch string(key) {
		case "#calls(b,g,a)":
			good = calls < 0
			calls, ok = acceptCalls(val)
			good = good && ok
		case "#gen tokens", "#acc tokens":
			f := Drafted
			if key[1] == 'a' {
				f = Accepted
			}
			x, ok := lex.Integer(val)
			good = ok && set(s, f, x)
		case "#mean acc len":
			good = llamaCommit(s, val)
		case "#acc rate/pos":
			good = llamaPositions(s, val)
		}
		if !good {
			return malformed(s, "llama.cpp statistics: bad or repeated value")
		}
	}
	if calls < 0 || !s.Has(Accepted) || !s.Has(Drafted) {
		return malformed(s, "llama.cpp statistics: missing #calls, #gen tokens or #acc tokens")
	}
	if !s.Has(Commit) && calls > 0 {
		c := 1 + s.Value(Accepted)/calls
		if c > maxCommit {
			return malformed(s, "llama.cpp statistics: more accepted tokens than 63 per accept call")
		}
		s.Set(Commit, c)
	}
	return Matched
}

// acceptCalls reads "   1    203    203" (begin, draft and accept calls) and returns the last.
func acceptCalls(v []byte) (float64, bool) {
	var x float64
	i := 0
	for k := 0; k < 3; k++ {
		for i < len(v) && v[i] == ' ' {
			i++
		}
		var n int
		x, n = lex.Number(v[i:])
		if n == 0 || (i+n < len(v) && v[i+n] != ' ') {
			return 0, false
		}
		i += n
	}
	return x, i == len(v)
}

func llamaCommit(s *Sample, v []byte) bool {
	x, absent, ok := commitLen(v)
	return ok && (absent || set(s, Commit, x))
}

// llamaPositions reads "(0.805, 0.632, 0.483)" into the per-position rates.
func llamaPositions(s *Sample, v []byte) bool {
	if s.NPos > 0 {
		return false
	}
	_, _, n, end, ok := lex.List(v, '(', ')', s.PerPos[:])
	for _, x := range s.PerPos[:n] {
		ok = ok && x <= 1
	}
	s.NPos = n
	return ok && end == len(v) && n > 0
}
