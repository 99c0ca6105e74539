package parse

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
)

// llamaSummary reads one line of the summary that llama.cpp's examples/speculative and
// speculative-simple print when a run ends, one figure per line, names padded to nine:
//
//	n_draft   = 8
//	n_predict = 921
//	n_drafted = 1020
//	n_accept  = 600
//	accept    = 58.824%
//
// No one line holds a commit length; Stream joins n_predict and n_accept into it (see
// joinSummary). It reports whether b was such a line.
func llamaSummary(b []byte, s *Sample) (Result, bool) {
	// The line's only '=', found with two vectorised searches (bytes.LastIndex of " = " costs
	// four times a noise line's parse: BenchmarkToolParserISO 1.1 → 4.0 µs on a loaded machine).
	j := bytes.IndexByte(b, '=') - 1
	if j < 9 || b[j] != ' ' || j+2 >= len(b) || b[j+2] != ' ' || bytes.IndexByte(b[j+2:], '=') >= 0 ||
		j > 9 && b[j-10] != ' ' {
		return Ignored, false
	}
	v := b[j+len(" = "):]
	var f Field
	switch string(b[j-9 : j]) {
	case "n_draft  ":
		f = SpecTokens
	case "n_predict":
		f = Emitted
	case "n_drafted":
		f = Drafted
	case "n_accept ":
		f = Accepted
	case "accept   ":
		f = AcceptRate
	default:
		return Ignored, false
	}
	x, ok := lex.Integer(v)
	if f == AcceptRate {
		x, ok = lex.Rate(v)
	}
	if !ok {
		return malformed(s, "llama.cpp summary: bad value"), true
	}
	prefix(b[:j-9], s)
	s.Kind, s.Event, s.Engine = KindEvent, EventSummary, EngineLlamaCpp
	s.Set(f, x)
	return Matched, true
}

// summaryJoin remembers the figures of a llama.cpp run summary that precede n_accept.
type summaryJoin struct {
	key              []byte // host \x00 unit \x00 container of the n_predict line
	predict, drafted float64
	has              uint8 // 1: predict, 2: drafted
}

// joinSummary makes the n_accept line of a run summary a spec sample: each verify step emits
// the drafts it accepted and one token of the target's, so the run made n_predict − n_accept
// verify steps and its commit length is n_predict / (n_predict − n_accept).
func (st *Stream) joinSummary(s *Sample) {
	j := &st.summary
	key := append(append(append(append(append(st.key[:0], s.Host...), 0), s.Unit...), 0), s.Container...)
	st.key = key
	same := j.has != 0 && bytes.Equal(j.key, key)
	switch {
	case s.Has(Emitted):
		j.key, j.predict, j.has = append(j.key[:0], key...), s.Value(Emitted), 1
	case s.Has(Drafted) && same:
		j.drafted, j.has = s.Value(Drafted), j.has|2
	case s.Has(Accepted) && same:
		if acc := s.Value(Accepted); j.has&1 != 0 && j.predict > acc && j.predict/(j.predict-acc) <= maxCommit {
			s.Kind = KindSpec
			s.Set(Commit, j.predict/(j.predict-acc))
			if j.has&2 != 0 {
				s.Set(Drafted, j.drafted)
			}
		}
		j.has = 0
	}
}
