package parse

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
)

// llamaCpp parses "draft acceptance rate = 0.58824 (  600 accepted /  1020 generated)".
func llamaCpp(b []byte, s *Sample) Result {
	_, r := llamaCounts(b, len("draft acceptance rate = "), s)
	return r
}

// llamaCppTiming parses the print_timing line of llama-server builds since the per-position
// statistics (llama.cpp pull request 24536), and the shorter "…, mean len =  4.30" of later ones:
//
//	draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.92, acceptance rate per position = (0.805, 0.632, 0.483)
//
// The rates per position are vLLM's: accepted at position i / verify steps.
func llamaCppTiming(b []byte, s *Sample) Result {
	i, r := llamaCounts(b, len("draft acceptance = "), s)
	for r == Matched && i < len(b) && b[i] != '\n' && b[i] != '\r' {
		if !bytes.HasPrefix(b[i:], []byte(", ")) {
			return malformed(s, "llama.cpp: unexpected text after the counts")
		}
		i += 2
		var key string
		for _, k := range []string{"mean acceptance length =", "mean len =", "acceptance rate per position = ("} {
			if bytes.HasPrefix(b[i:], []byte(k)) {
				key, i = k, i+len(k)
			}
		}
		switch key {
		case "":
			return malformed(s, "llama.cpp: unknown statistic")
		case "acceptance rate per position = (":
			n, end, ok := lex.Rates(b, i, s.PerPos[:])
			if !ok || s.NPos > 0 || end >= len(b) || b[end] != ')' {
				return malformed(s, "llama.cpp: bad per-position list")
			}
			s.NPos, i = n, end+1
			continue
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
	return r
}

// llamaCounts reads "0.58824 (  600 accepted /  1020 generated)" from b[i:], returning where
// it ended.
func llamaCounts(b []byte, i int, s *Sample) (int, Result) {
	s.Kind = KindSpec
	x, n := lex.Number(b[i:])
	if n == 0 || x > 1 {
		return i, malformed(s, "llama.cpp: bad rate")
	}
	s.Set(AcceptRate, x)
	i += n
	acc, ok1 := lex.CountAfter(b, &i, " (", " accepted /")
	gen, ok2 := lex.CountAfter(b, &i, "", " generated)")
	if !ok1 || !ok2 {
		return i, malformed(s, "llama.cpp: bad counts")
	}
	s.Set(Accepted, acc)
	s.Set(Drafted, gen)
	return i, Matched
}
