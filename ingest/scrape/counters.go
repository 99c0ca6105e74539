package scrape

import "github.com/specwatch/specwatch/sample"

// prev is the last scrape of one rank: the interval's start.
type prev struct {
	t   int64 // Unix ns
	r   reading
	ok  bool
	gen int // the scrape generation that last saw this rank
	// The start of SGLang's finished-request interval: its verify-step and token counters move
	// only when a request finishes, so the interval runs from the last scrape at which they
	// moved, not from the last scrape.
	vCalls, vGen float64
	vOK          bool
	// The start of llama.cpp's interval, likewise the last scrape that gave its figures
	// (llamacpp.go).
	lStart reading
	lOK    bool
}

// reset reports whether any counter the two readings share went down: the engine restarted
// (or its counters were cleared), and the interval is not a delta.
func reset(a, b *reading) bool {
	for s := slot(0); s < numSlots; s++ {
		if !s.isCounter() || s == slotPerPos || s == slotDraftPerPos {
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
	for i := 0; i < min(a.dNPos, b.dNPos); i++ {
		if b.dPos[i] < a.dPos[i] {
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
// through fill (which sets time, host, unit, engine, rank and source). vLLM gets a decode
// sample (its engine line: running, waiting, KV usage, generation tokens/s) then a spec sample
// (its SpecDecoding line: commit length, accepted and drafted tokens, per position), as its logs
// would; the other engines one decode sample with everything, as SGLang's decode line has.
// Counters yield figures only over an interval with a start and no reset; gauges are the value
// as of the scrape. A reset (the engine restarted) yields an event sample first, and no figure
// from the counters: the interval starts again at this scrape. llama.cpp has rules of its own
// (llamaSample).
func samples(p *prev, t int64, cur *reading, engine sample.Engine, fill func(*sample.Sample)) []sample.Sample {
	restarted := p.ok && reset(&p.r, cur)
	var ev sample.Sample
	if restarted {
		fill(&ev)
		ev.Kind, ev.Event = sample.KindEvent, sample.EventRestart
	}
	if engine == sample.EngineLlamaCpp {
		out := make([]sample.Sample, 0, 2)
		if restarted {
			out = append(out, ev)
		}
		var s sample.Sample
		fill(&s)
		if llamaSample(p, cur, restarted, &s) {
			out = append(out, s)
		}
		return out
	}
	var dec, spec sample.Sample
	dec.Kind, spec.Kind = sample.KindDecode, sample.KindSpec
	fill(&dec)
	fill(&spec)
	gauge := func(s *sample.Sample, sl slot, f sample.Field) {
		if v, ok := cur.get(sl); ok {
			s.Set(f, v)
		}
	}
	gauge(&dec, slotRunning, sample.Running)
	gauge(&dec, slotQueue, sample.Queue)
	gauge(&dec, slotKVUsage, sample.KVUsage)
	gauge(&dec, slotTokenUsage, sample.TokenUsage)
	gauge(&dec, slotGenTPS, sample.GenTPS)
	gauge(&dec, slotContext, sample.Context)
	gauge(&dec, slotIterLatency, sample.StepSeconds)

	counts := &dec
	if engine == sample.EngineVLLM {
		counts = &spec
	}
	gauge(counts, slotAcceptRate, sample.AcceptRate)
	gauge(counts, slotSpecSteps, sample.SpecSteps)
	gauge(counts, slotVerifyTokens, sample.VerifyTokens)
	gauge(counts, slotSpecTokens, sample.SpecTokens)
	_, verifies := cur.get(slotVerifyCalls)
	if !verifies { // SGLang's counters, when it has them, replace its most-recent gauge
		gauge(counts, slotCommit, sample.Commit)
	}
	if c, ok := v0Commit(cur); ok && !counts.Has(sample.Commit) {
		counts.Set(sample.Commit, c)
	}

	secs := float64(t-p.t) / 1e9
	if p.ok && secs > 0 && !restarted {
		intervalCounts(&p.r, cur, secs, &dec, counts)
	}
	finishedCommit(p, cur, restarted, counts)

	out := make([]sample.Sample, 0, 3)
	if restarted {
		out = append(out, ev)
	}
	if dec.Fields() != 0 {
		out = append(out, dec)
	}
	if spec.Fields() != 0 {
		out = append(out, spec)
	}
	return out
}

// intervalCounts sets the figures of the counters' increase over one interval of secs seconds.
func intervalCounts(a, b *reading, secs float64, dec, counts *sample.Sample) {
	if d, ok := delta(a, b, slotGenTokens); ok && !dec.Has(sample.GenTPS) {
		dec.Set(sample.GenTPS, d/secs)
	}
	acc, hasAcc := delta(a, b, slotAccepted)
	drafted, hasDr := delta(a, b, slotDraftTokens)
	drafts, hasDrafts := delta(a, b, slotDrafts)
	emitted, hasEm := delta(a, b, slotEmitted)
	if gen, ok := delta(a, b, slotGenTokens); ok && gen > 0 && hasDr && drafted == 0 {
		counts.Set(sample.SpecSteps, 0) // tokens without drafts: speculation off by policy
	}
	if hasAcc && hasDr && drafted > 0 {
		counts.Set(sample.Accepted, acc)
		counts.Set(sample.Drafted, drafted)
		counts.Set(sample.AcceptedTPS, acc/secs)
		counts.Set(sample.DraftedTPS, drafted/secs)
	}
	switch {
	case hasAcc && hasDrafts && drafts > 0:
		counts.Set(sample.Commit, 1+acc/drafts) // the counters win over a gauge
		n := min(a.nPos, b.nPos)
		for i := 0; i < n; i++ {
			counts.PerPos[i] = (b.perPos[i] - a.perPos[i]) / drafts
		}
		counts.NPos = n
	case hasAcc && hasEm && emitted > acc:
		// vLLM v0 counts no verify steps, but each step emits its accepted tokens and one
		// more: steps = emitted − accepted, commit length = emitted / steps.
		counts.Set(sample.Commit, emitted/(emitted-acc))
	}
	perPosDrafted(a, b, counts)
}

// perPosDrafted sets acceptance per position from the drafted tokens at each position, when
// the engine counts them (vLLM's num_draft_tokens_per_pos, TensorRT-LLM's drafted_tokens):
// with a draft length that varies from step to step, a later position is drafted in fewer
// steps, and accepted / verify steps would under-report it. Positions are drafted as a
// prefix, so the list ends at the first position not drafted in the interval.
func perPosDrafted(a, b *reading, counts *sample.Sample) {
	if b.has&(1<<slotDraftPerPos) == 0 || a.has&(1<<slotDraftPerPos) == 0 || b.nPos != b.dNPos {
		return
	}
	n := 0
	var out [sample.MaxPerPosition]float64
	for i := 0; i < b.dNPos; i++ {
		var d, acc float64 = b.dPos[i], b.perPos[i]
		if i < a.dNPos {
			d -= a.dPos[i]
		}
		if i < a.nPos {
			acc -= a.perPos[i]
		}
		if d <= 0 || acc < 0 || acc > d {
			break
		}
		out[i] = acc / d
		n++
	}
	if n == 0 {
		return
	}
	counts.PerPos, counts.NPos = out, n
}

// v0Commit is vLLM v0's commit length from its two gauges when its counters are not there:
// with acceptance rate α and efficiency e = (αk + 1)/(k + 1), k = (1 − e)/(e − α) and the
// commit length is αk + 1.
func v0Commit(r *reading) (float64, bool) {
	e, okE := r.get(slotEfficiency)
	a, okA := r.get(slotAcceptRate)
	if _, em := r.get(slotEmitted); em || !okE || !okA || e <= a || e > 1 || a < 0 {
		return 0, false
	}
	k := (1 - e) / (e - a)
	if k < 1 || k > 64 {
		return 0, false
	}
	return a*k + 1, true
}

// finishedCommit sets SGLang's commit length from its finished-request counters: tokens
// generated / verify steps over the requests that finished since the counters last moved. A
// scrape at which no request finished yields nothing (not a commit length of zero or one), and
// keeps the interval's start. The verify steps go with it (Steps), so that the series' commit
// counters add exactly the tokens the engine counted.
func finishedCommit(p *prev, cur *reading, restarted bool, counts *sample.Sample) {
	calls, ok1 := cur.get(slotVerifyCalls)
	gen, ok2 := cur.get(slotReqGenTokens)
	if !ok1 || !ok2 {
		p.vOK = false
		return
	}
	switch {
	case !p.vOK || restarted || calls < p.vCalls || gen < p.vGen:
	case calls > p.vCalls:
		if c := (gen - p.vGen) / (calls - p.vCalls); c >= 1 {
			counts.Set(sample.Commit, c)
			counts.Set(sample.Steps, calls-p.vCalls)
		}
	default:
		return // no request finished: the interval goes on
	}
	p.vCalls, p.vGen, p.vOK = calls, gen, true
}
