package llama

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
)

// Stats is one common_speculative statistics line, one per drafting implementation, its counts
// cumulative since the server started (common/speculative.cpp, common_speculative_print_stats):
//
//	statistics     draft-simple: #calls(b,g,a) =    1     48     48, #gen drafts =     48, #acc drafts =    32, #gen tokens =    373, #acc tokens =    79, #mean acc len = 2.65, #acc rate/pos = (0.667, 0.667, 0.312), dur(b,g,a) = 0.016, 41.300, 0.015 ms
//
// #mean acc len is 1 + #acc tokens / #gen drafts, per drafting step: never a commit length.
// #acc rate/pos holds accepted-at-position counts over #gen drafts, trailing zeros left out
// (an empty "()" when nothing was accepted).
type Stats struct {
	Name                 []byte     // "draft-simple"; empty when the line names none
	Calls                [3]float64 // begin, draft and accept calls
	GenDrafts, AccDrafts float64    // HasDrafts: the line printed them
	GenTokens, AccTokens float64
	Mean                 float64 // HasMean
	HasDrafts, HasMean   bool
	NPos                 int // per-position rates read into the caller's list
}

// ReadStats reads a statistics line from "statistics" on (or from "#calls(b,g,a)", the
// record's lead, when the name is not there). why names the damage of a line not read.
func ReadStats(b []byte, pos []float64) (st Stats, why string) {
	if cut(&b, "statistics ") {
		b = b[skip(b, 0):]
		j := bytes.Index(b, []byte(": #calls"))
		if j < 0 {
			return st, "llama.cpp statistics: no implementation name"
		}
		st.Name, b = b[:j], b[j+2:]
	}
	it := lex.Pairs{B: b}
	var seen uint8
	for {
		key, val, more, ok := it.Next()
		if !ok {
			return st, "llama.cpp statistics: fragment without key"
		}
		if !more {
			break
		}
		bit, good := uint8(0), true
		var count *float64
		switch string(key) {
		case "#calls(b,g,a)":
			bit, good = 1, triple(val, &st.Calls)
		case "#gen tokens":
			bit, count = 2, &st.GenTokens
		case "#acc tokens":
			bit, count = 4, &st.AccTokens
		case "#gen drafts":
			bit, count = 8, &st.GenDrafts
		case "#acc drafts":
			bit, count = 16, &st.AccDrafts
		case "#mean acc len":
			bit = 32
			st.Mean, good = lex.WholeNumber(val)
			good = good && st.Mean >= 1 && st.Mean <= 1+MaxPos
		case "#acc rate/pos":
			bit = 64
			st.NPos, good = rates(val, pos)
		}
		if count != nil {
			*count, good = lex.Integer(val)
		}
		if !good || seen&bit != 0 {
			return st, "llama.cpp statistics: bad or repeated value"
		}
		seen |= bit
	}
	if seen&7 != 7 {
		return st, "llama.cpp statistics: missing #calls, #gen tokens or #acc tokens"
	}
	st.HasDrafts, st.HasMean = seen&24 == 24, seen&32 != 0
	return st, ""
}

// triple reads "   1    203    203" (begin, draft and accept calls).
func triple(v []byte, out *[3]float64) bool {
	i := 0
	for k := range out {
		i = skip(v, i)
		x, n := lex.Number(v[i:])
		if n == 0 || (i+n < len(v) && v[i+n] != ' ') {
			return false
		}
		out[k] = x
		i += n
	}
	return i == len(v)
}
