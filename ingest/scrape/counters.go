package scrape

import (
	"github.com/specwatch/specwatch/parse"
)

// prev is the last scrape of one rank: the interval's start.
type prev struct {
	t   int64 // Unix ns
	r   reading
	ok  bool
	gen int // the scrape generation that last saw this rank
}

// reset reports whether any counter the two readings share went down: the engine restarted
// (or its counters were cleared), and the interval is not a delta.
func reset(a, b *reading) bool {
	for s := slot(0); s < numSlots; s++ {
		if !s.isCounter() || s == slotPerPos {
			continue
		}
		va, oka := a.get(s)
		vb, okb := b.get(s)
		if oka && okb && vb < va {
			return true
		}
	}
	for i := 0; i < min(a.nPos, b.nPos); i++ {
		if b.perPos[i] < a.perPos[i] {
			return true
		}
	}
	return false
}

// delta is the counter increase of slot s over the interval, if both ends carried it.
func delta(a, b *reading, s slot) (float64, bool) {
	va, oka := a.get(s)
	vb, okb := b.get(s)
	if !oka || !okb {
		return 0, false
	}
	return vb - va, true
}

// samples turns the interval from p to (t, cur) into the model's samples, appended to out
// through fill (which sets time, host, unit, engine and rank). vLLM gets a decode sample (its
// engine line: running, waiting, KV usage, generation tokens/s) then a spec sample (its
// SpecDecoding line: commit length, accepted and drafted tokens, per position), as its logs
// would; the other engines one decode sample with everything, as SGLang's decode line has.
// Counters yield figures only over an interval with a start and no reset; gauges are the value
// as of the scrape.
func samples(p *prev, t int64, cur *reading, engine parse.Engine, fill func(*parse.Sample)) []parse.Sample {
	var dec, spec parse.Sample
	dec.Kind, spec.Kind = parse.KindDecode, parse.KindSpec
	fill(&dec)
	fill(&spec)
	gauge := func(s *parse.Sample, sl slot, f parse.Field) {
		if v, ok := cur.get(sl); ok {
			s.Set(f, v)
		}
	}
	gauge(&dec, slotRunning, parse.Running)
	gauge(&dec, slotQueue, parse.Queue)
	gauge(&dec, slotKVUsage, parse.KVUsage)
	gauge(&dec, slotTokenUsage, parse.TokenUsage)
	gauge(&dec, slotGenTPS, parse.GenTPS)
	gauge(&dec, slotAcceptRate, parse.AcceptRate)
	gauge(&dec, slotCommit, parse.Commit)

	counts := &dec
	if engine == parse.EngineVLLM {
		counts = &spec
	}
	secs := float64(t-p.t) / 1e9
	if p.ok && secs > 0 && !reset(&p.r, cur) {
		if d, ok := delta(&p.r, cur, slotGenTokens); ok && !dec.Has(parse.GenTPS) {
			dec.Set(parse.GenTPS, d/secs)
		}
		acc, hasAcc := delta(&p.r, cur, slotAccepted)
		drafted, hasDr := delta(&p.r, cur, slotDraftTokens)
		drafts, hasDrafts := delta(&p.r, cur, slotDrafts)
		if hasAcc && hasDr && drafted > 0 {
			counts.Set(parse.Accepted, acc)
			counts.Set(parse.Drafted, drafted)
			counts.Set(parse.AcceptedTPS, acc/secs)
			counts.Set(parse.DraftedTPS, drafted/secs)
		}
		if hasAcc && hasDrafts && drafts > 0 {
			counts.Set(parse.Commit, 1+acc/drafts) // the counters win over a gauge
			n := min(p.r.nPos, cur.nPos)
			for i := 0; i < n; i++ {
				counts.PerPos[i] = (cur.perPos[i] - p.r.perPos[i]) / drafts
			}
			counts.NPos = n
		}
	}
	out := make([]parse.Sample, 0, 2)
	if dec.Fields() != 0 {
		out = append(out, dec)
	}
	if spec.Fields() != 0 {
		out = append(out, spec)
	}
	return out
}
