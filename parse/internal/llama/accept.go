package llama

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
)

// Acceptance reads a request's acceptance line in its three shapes (docs/formats.md has the
// builds that print each), from "draft acceptance" on:
//
//	draft acceptance rate = 0.58824 (  600 accepted /  1020 generated)
//	draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.92, acceptance rate per position = (0.805, 0.632, 0.483)
//	draft acceptance = 0.21180 (   79 accepted /   373 generated), mean len =  2.65
//
// The mean is 1 + accepted / the steps that drafted (n_draft_verif_steps), not a commit length:
// an n-gram request that drafted in few of its steps prints 53.33 where it committed 4.74 tokens
// per verify step. It is kept as l.Mean, informative only.
func Acceptance(b []byte, l Line, pos []float64) (Line, string) {
	l.Part = PartAccept
	i := len("draft acceptance ")
	switch {
	case bytes.HasPrefix(b[i:], []byte("rate = ")):
		i += len("rate = ")
	case bytes.HasPrefix(b[i:], []byte("= ")):
		i += len("= ")
	default:
		return l, "llama.cpp acceptance: bad lead"
	}
	x, n := lex.Number(b[i:])
	if n == 0 || x > 1 {
		return l, "llama.cpp acceptance: bad rate"
	}
	l.Rate = x
	i += n
	acc, ok1 := lex.CountAfter(b, &i, " (", " accepted /")
	gen, ok2 := lex.CountAfter(b, &i, "", " generated)")
	if !ok1 || !ok2 {
		return l, "llama.cpp acceptance: bad counts"
	}
	l.Accepted, l.Drafted = acc, gen
	it, list := lex.Pairs{B: b, Pos: i}, false
	for {
		key, val, more, ok := it.Next()
		if !ok {
			return l, "llama.cpp acceptance: fragment without key"
		}
		if !more {
			return l, ""
		}
		switch string(key) {
		case "mean len", "mean acceptance length":
			m, ok := lex.WholeNumber(val)
			if !ok || m < 1 || m > 1+MaxPos || l.HasMean {
				return l, "llama.cpp acceptance: bad mean length"
			}
			l.Mean, l.HasMean = m, true
		case "acceptance rate per position":
			n, ok := rates(val, pos) // "()": drafts never verified
			if !ok || list {
				return l, "llama.cpp acceptance: bad per-position list"
			}
			l.NPos, list = n, true
		}
	}
}
