package parse

import (
	"github.com/specwatch/specwatch/parse/internal/llama"
	"github.com/specwatch/specwatch/sample"
)

// llamaTag is what a llama.cpp line leaves for Stream's joins (llamajoin.go): the slot line or
// the statistics read, whose slot, task and implementation no Field holds.
type llamaTag struct {
	line  llama.Line
	stats llama.Stats
	isSt  bool
}

// llamaSlot reads a server slot line from its "id" on (parse/internal/llama): a request's lines
// are matched parts of its join, which the model skips; the prompt's is also a prefill sample.
// The slot's other lines (get_availabl, init_sampler, the per-token trace) are ignored.
func llamaSlot(b []byte, s *Record) sample.Result {
	l, why := llama.Slot(b, s.PerPos[:])
	return llamaLine(l, why, s)
}

// llamaBare reads a request's line printed without its slot: the acceptance line and older
// builds' continuation lines ("prompt eval time = …" alone after a bare "slot print_timing:").
func llamaBare(b []byte, s *Record) sample.Result {
	l, why := llama.Message(b, llama.Line{}, s.PerPos[:])
	return llamaLine(l, why, s)
}

func llamaLine(l llama.Line, why string, s *Record) sample.Result {
	if why != "" {
		return malformed(s, why)
	}
	switch l.Part {
	case llama.PartNone:
		return sample.Ignored
	case llama.PartPromptProgress: // a long prompt's progress: prefill, not a line of the join
		s.Kind = sample.KindPrefill
		if l.HasTPS {
			s.Set(sample.PromptTPS, l.TPS)
		}
		return sample.Matched
	}
	s.llama.line, s.NPos = l, l.NPos
	s.Kind, s.Event = sample.KindDecode, sample.EventPart
	switch l.Part {
	case llama.PartPrompt:
		s.Kind, s.Event = sample.KindPrefill, sample.EventNone
		s.Set(sample.NewTokens, l.N)
		if l.HasTPS {
			s.Set(sample.PromptTPS, l.TPS)
		}
	case llama.PartEval, llama.PartProgress:
		if l.HasTPS {
			s.Set(sample.GenTPS, l.TPS)
		}
	case llama.PartAccept:
		s.Kind = sample.KindSpec // its mean is per drafting step: never a commit length
		s.Set(sample.AcceptRate, l.Rate)
		s.Set(sample.Accepted, l.Accepted)
		s.Set(sample.Drafted, l.Drafted)
	case llama.PartPerPos:
		s.Kind = sample.KindSpec
	}
	return sample.Matched
}

// llamaStats reads common_speculative's statistics line, one per drafting implementation,
// cumulative since the server started (EventTotals; Stream makes the next ones deltas):
// accepted and drafted tokens and the per-position rates. Its #mean acc len is per drafting
// step, never a commit length.
func llamaStats(b []byte, s *Record) sample.Result {
	st, why := llama.ReadStats(b, s.PerPos[:])
	if why != "" {
		return malformed(s, why)
	}
	s.Kind, s.Event = sample.KindSpec, sample.EventTotals
	s.Set(sample.Accepted, st.AccTokens)
	s.Set(sample.Drafted, st.GenTokens)
	s.NPos = st.NPos
	s.llama.stats, s.llama.isSt = st, true
	return sample.Matched
}
