package scrape

import (
	"math"

	"github.com/specwatch/specwatch/sample"
)

// llama-server adds to its counters only when a request finishes: tokens_predicted_total and
// tokens_predicted_seconds_total (the request's decode time, by the engine's clock), the
// speculative counters. So a scrape at which no request finished says nothing, and a rate per
// wall second between scrapes is an artefact of where the scrapes fell (a request decoded at
// 97 tok/s reads 51 tok/s when it ends in a 5 s interval that began before it). What the
// counters do give, over the requests that finished since the interval's start:
//
//   - tok/s = Δtokens_predicted / Δtokens_predicted_seconds: per request, since with parallel
//     slots each slot adds its own decode time (the sum of the requests' tokens over the sum
//     of their decode times);
//   - accepted and drafted tokens, and the accept rate;
//   - acceptance per position = Δaccepted at the position / Δspec_decode_num_drafts, as the
//     logs' per-request lists state it: _num_drafts counts the verify steps that carried a
//     draft (n-gram drafting skips most steps).
//
// Never a commit length. Tokens per verify step needs the verify steps, Δtokens − Δrequests −
// Δaccepted (a request's first token comes from its prompt pass), and this build counts no
// requests: n_decode_total counts llama_decode calls, prompt batches included and one call for
// the verify steps of all parallel slots. 1 + accepted / drafts is per drafting step (on an
// n-gram run, 44.5 where the engine committed 3.2 per verify step). A series that also reads
// the engine's logs takes its commit length, step time and context from each request's lines;
// the model keeps this source's figures out of them (model/internal/fusion).
//
// llamaSample fills s (a spec sample) with the figures of the interval from the last scrape
// that gave figures to cur, and reports whether there are any; without, the interval goes on.
// A restart starts it again at cur.
func llamaSample(p *prev, cur *reading, restarted bool, s *sample.Sample) bool {
	if !p.lOK || restarted || reset(&p.lStart, cur) {
		p.lStart, p.lOK = *cur, true
		return false
	}
	a := &p.lStart
	tok, ok1 := delta(a, cur, slotGenTokens)
	secs, ok2 := delta(a, cur, slotGenSeconds)
	if !ok1 || !ok2 || tok <= 0 || secs <= 0 {
		return false // no request finished
	}
	if !fine(a, cur, slotGenTokens) || !fine(a, cur, slotGenSeconds) {
		return false // the deltas are still within the printing's rounding: wait for more
	}
	s.Kind = sample.KindSpec
	s.Set(sample.GenTPS, tok/secs)
	acc, hasAcc := delta(a, cur, slotAccepted)
	drafted, hasDr := delta(a, cur, slotDraftTokens)
	if hasAcc && hasDr && fine(a, cur, slotAccepted) && fine(a, cur, slotDraftTokens) {
		s.Set(sample.Accepted, acc)
		s.Set(sample.Drafted, drafted)
		if drafted > 0 {
			s.Set(sample.AcceptRate, acc/drafted)
		}
	}
	llamaPerPos(a, cur, s)
	p.lStart = *cur
	return true
}

// llamaPerPos sets acceptance per position over the interval, when drafts were made in it. The
// family is absent until a speculative request has finished: a start without it, and without
// accepted tokens, had every position at 0.
func llamaPerPos(a, b *reading, s *sample.Sample) {
	drafts, ok := delta(a, b, slotDrafts)
	if !ok || drafts <= 0 || !fine(a, b, slotDrafts) || b.nPos == 0 {
		return
	}
	acc, _ := a.get(slotAccepted)
	switch {
	case a.nPos == b.nPos:
	case a.nPos == 0 && a.has&(1<<slotPerPos) == 0 && acc == 0:
	default:
		return // the draft length changed, or a list went missing
	}
	for i := range b.nPos {
		d := b.perPos[i] - a.perPos[i]
		if d > 0 && d < 100*printErr(b.perPos[i]) {
			return // rounded away
		}
		s.PerPos[i] = d / drafts
	}
	s.NPos = b.nPos
}

// fine reports whether slot s's increase is known to 1 %: llama-server prints six significant
// digits (C++ stream formatting), so past a million tokens, or 100,000 seconds of decoding, a
// request's increase is rounded by as much as the request itself.
func fine(a, b *reading, s slot) bool {
	va, _ := a.get(s)
	vb, _ := b.get(s)
	return vb-va >= 100*(printErr(va)+printErr(vb))
}

// printErr is the most that printing v with six significant digits rounded off: nothing for
// an integer below a million, else half its last digit.
func printErr(v float64) float64 {
	if v <= 0 || v < 1e6 && v == math.Trunc(v) {
		return 0
	}
	return math.Pow(10, math.Floor(math.Log10(v))-5) / 2
}
