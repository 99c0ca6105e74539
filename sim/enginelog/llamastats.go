package enginelog

import "github.com/specwatch/specwatch/sim/internal/appendtext"

// appendStatistics writes common_speculative_print_stats' line, totals since the server
// started (Drafts, Drafted, Accepted and Pos hold them here):
//
//	spec common_specu: statistics     draft-simple: #calls(b,g,a) =    1     48     48, #gen drafts =     48, #acc drafts =    32, #gen tokens =    373, #acc tokens =    79, #mean acc len = 2.65, #acc rate/pos = (0.667, 0.667, 0.312), dur(b,g,a) = 0.016, 41.300, 0.015 ms
//
// The mean and the list come only once a draft was verified; both divide by the accept calls,
// and the list ends at the longest acceptance seen, "()" while nothing was accepted.
func (w *Writer) appendStatistics(b []byte, rec *Record) []byte {
	t := &rec.Totals
	b = append(b, "spec common_specu: statistics "...)
	s := len(b)
	b = appendtext.PadLeft(append(b, w.Drafter...), s, 16)
	b = append(b, ": #calls(b,g,a) = "...)
	b = appendCount(b, t.Begins, 4)
	b = appendCount(append(b, ' '), t.DraftCalls, 6)
	b = appendCount(append(b, ' '), t.AcceptCalls, 6)
	b = appendCount(append(b, ", #gen drafts = "...), rec.Drafts, 6)
	b = appendCount(append(b, ", #acc drafts = "...), t.AccDrafts, 5)
	b = appendCount(append(b, ", #gen tokens = "...), rec.Drafted, 6)
	b = appendCount(append(b, ", #acc tokens = "...), rec.Accepted, 5)
	if t.AcceptCalls > 0 {
		b = append(b, ", #mean acc len = "...)
		b = appendtext.Fixed(b, 1+float64(rec.Accepted)/float64(t.AcceptCalls), 2)
		b = append(b, ", #acc rate/pos = ("...)
		n := MaxPositions
		for n > 0 && rec.Pos[n-1] == 0 {
			n--
		}
		b = append(appendRates(b, &rec.Pos, n, t.AcceptCalls), ')')
	}
	b = append(b, ", dur(b,g,a) = "...)
	b = appendtext.Fixed(b, t.BeginMs, 3)
	b = append(b, ", "...)
	b = appendtext.Fixed(b, t.DraftMs, 3)
	b = append(b, ", "...)
	b = appendtext.Fixed(b, t.AcceptMs, 3)
	return append(b, " ms"...)
}

// appendCount writes v right-aligned in width, printf's %Nzu.
func appendCount(b []byte, v int64, width int) []byte {
	s := len(b)
	return appendtext.PadLeft(appendtext.Int(b, v), s, width)
}
