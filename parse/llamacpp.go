package parse

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
)

// llamaCppTiming parses the print_timing line of llama-server builds since the per-position
// statistics (llama.cpp pull request 24536):
//
//	draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.92, acceptance rate per position = (0.805, 0.632, 0.483)
//
// and the shorter form of later builds, "..., mean len =  4.30". The rates per position are
// vLLM's: accepted at position i / verify steps.
func llamaCppTiming(b []byte, s *Sample) Result {
	s.Kind = KindSpec
	i := len("draft acceptance = ")
	x, n := lex.Number(b[i:])
	if n == 0 || x > 1 {
		return malformed(s, "llama.cpp: bad rate")
	}
	s.Set(AcceptRate, x)
	i += n
	acc, ok1 := countAfter(b, &i, " (", " accepted /")
	gen, ok2 := countAfter(b, &i, "", " generated)")
	if !ok1 || !ok2 {
		return malformed(s, "llama.cpp: bad counts")
	}
	s.Set(Accepted, acc)
	s.Set(Drafted, gen)
	for i < len(b) && b[i] != '\n' && b[i] != '\r' {
		if !bytes.HasPrefix(b[i:], []byte(", ")) {
			return malformed(s, "llama.cpp: unexpected text after the counts")
		}
		i += 2
		switch {
		case bytes.HasPrefix(b[i:], []byte("mean acceptance length =")):
			i += len("mean acceptance length =")
		case bytes.HasPrefix(b[i:], []byte("mean len =")):
			i += len("mean len =")
		case bytes.HasPrefix(b[i:], []byte("acceptance rate per position = (")):
			i += len("acceptance rate per position = (")
			if !llamaPositions(b, &i, s) {
				return malformed(s, "llama.cpp: bad per-position list")
			}
			continue
		default:
			return malformed(s, "llama.cpp: unknown statistic")
		}
		for i < len(b) && b[i] == ' ' {
			i++
		}
		c, n := lex.Number(b[i:])
		if n == 0 || c < 1 || c > 64 || s.Has(Commit) {
			return malformed(s, "llama.cpp: bad mean acceptance length")
		}
		s.Set(Commit, c)
		i += n
	}
	return Matched
}

// llamaPositions reads "0.805, 0.632, 0.483)" at b[*i:].
func llamaPositions(b []byte, i *int, s *Sample) bool {
	if s.NPos > 0 {
		return false
	}
	j := *i
	for {
		x, n := lex.Number(b[j:])
		if n == 0 || x > 1 || s.NPos == MaxPerPosition {
			return false
		}
		s.PerPos[s.NPos] = x
		s.NPos++
		j += n
		if bytes.HasPrefix(b[j:], []byte(", ")) {
			j += 2
			continue
		}
		if j < len(b) && b[j] == ')' {
			*i = j + 1
			return true
		}
		return false
	}
}
