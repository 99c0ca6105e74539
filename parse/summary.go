package parse

import (
	"github.com/specwatch/specwatch/parse/internal/llama"
	"github.com/specwatch/specwatch/sample"
)

// summaryFields are the Fields of the run summary's figures (llama.SummaryLine).
var summaryFields = [...]sample.Field{llama.FigDraft: sample.SpecTokens, llama.FigPredict: sample.Emitted, llama.FigDrafted: sample.Drafted,
	llama.FigAccept: sample.Accepted, llama.FigRate: sample.AcceptRate}

// llamaSummary reads one line of the summary that llama.cpp's examples/speculative and
// speculative-simple print when a run ends, one figure per line ("n_predict = 921"): an
// event sample, which Stream joins (joinSummary). It reports whether b was such a line.
func llamaSummary(b []byte, s *Record) (sample.Result, bool) {
	f, x, at, why := llama.SummaryLine(b)
	switch {
	case f == llama.FigNone:
		return sample.Ignored, false
	case why != "":
		return malformed(s, why), true
	}
	prefix(b[:at], s)
	s.Kind, s.Event, s.Engine = sample.KindEvent, sample.EventSummary, sample.EngineLlamaCpp
	s.Set(summaryFields[f], x)
	return sample.Matched, true
}

// summaryJoin is Stream's memory of a run summary's figures.
type summaryJoin = llama.RunSummary

// joinSummary makes the n_accept line of a run summary a spec sample with the run's commit
// length, n_predict / (n_predict − n_accept) (llama.RunSummary).
func (st *Stream) joinSummary(s *Record) {
	f := llama.FigNone
	for i, g := range summaryFields {
		if i != 0 && s.Has(g) {
			f = llama.Figure(i)
		}
	}
	st.key = append(append(append(append(append(st.key[:0], s.Host...), 0), s.Unit...), 0), s.Container...)
	if c, d, hasD, ok := st.summary.Add(st.key, f, s.Value(summaryFields[f])); ok {
		s.Kind = sample.KindSpec
		s.Set(sample.Commit, c)
		if hasD {
			s.Set(sample.Drafted, d)
		}
	}
}
