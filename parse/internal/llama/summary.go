package llama

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
)

// Figure names a line of the summary that examples/speculative and speculative-simple print
// when a run ends, one figure per line, names padded to nine:
//
//	n_draft   = 8
//	n_predict = 921
//	n_drafted = 1020
//	n_accept  = 600
//	accept    = 58.824%
type Figure uint8

const (
	FigNone Figure = iota
	FigDraft
	FigPredict
	FigDrafted
	FigAccept
	FigRate
)

// SummaryLine reads b as one summary line: its figure (FigNone: not such a line), value (a
// fraction for the rate), where its name starts (the prefix before it) and, for a damaged value,
// why.
func SummaryLine(b []byte) (f Figure, x float64, at int, why string) {
	// The line's only '=', found with two vectorised searches (bytes.LastIndex of " = " costs
	// four times a noise line's parse: BenchmarkToolParserISO 1.1 → 4.0 µs on a loaded machine).
	j := bytes.IndexByte(b, '=') - 1
	if j < 9 || b[j] != ' ' || j+2 >= len(b) || b[j+2] != ' ' || bytes.IndexByte(b[j+2:], '=') >= 0 ||
		j > 9 && b[j-10] != ' ' {
		return FigNone, 0, 0, ""
	}
	switch string(b[j-9 : j]) {
	case "n_draft  ":
		f = FigDraft
	case "n_predict":
		f = FigPredict
	case "n_drafted":
		f = FigDrafted
	case "n_accept ":
		f = FigAccept
	case "accept   ":
		f = FigRate
	default:
		return FigNone, 0, 0, ""
	}
	v := b[j+len(" = "):]
	ok := false
	if f == FigRate {
		x, ok = lex.Rate(v)
	} else {
		x, ok = lex.Integer(v)
	}
	if !ok {
		return f, 0, j - 9, "llama.cpp summary: bad value"
	}
	return f, x, j - 9, ""
}

// RunSummary joins a summary's figures: no one line holds a commit length, but each verify step
// emits the drafts it accepted and one token of the target's, so the run made n_predict −
// n_accept steps and committed n_predict / (n_predict − n_accept) tokens a step. The zero value
// is ready.
type RunSummary struct {
	key              []byte // the server of the n_predict line
	predict, drafted float64
	has              uint8 // 1: predict, 2: drafted
}

// Add takes figure f of server key. On n_accept after the same server's n_predict it returns
// the run's commit length (at most 64, as a printed one) and, when printed, its drafted tokens.
func (r *RunSummary) Add(key []byte, f Figure, x float64) (commit, drafted float64, hasDrafted, ok bool) {
	same := r.has != 0 && bytes.Equal(r.key, key)
	switch {
	case f == FigPredict:
		r.key, r.predict, r.has = append(r.key[:0], key...), x, 1
	case f == FigDrafted && same:
		r.drafted, r.has = x, r.has|2
	case f == FigAccept && same:
		if r.has&1 != 0 && r.predict > x && r.predict/(r.predict-x) <= MaxPos {
			commit, ok = r.predict/(r.predict-x), true
		}
		drafted, hasDrafted = r.drafted, r.has&2 != 0
		r.has = 0
	}
	return commit, drafted, hasDrafted, ok
}
