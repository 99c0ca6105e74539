package sim

import "time"

// ANSI sequences vLLM uses: the process tag in bold cyan, the level in green, the source dim.
const (
	ansiCyan  = "\x1b[1;36m"
	ansiReset = "\x1b[0;0m"
	ansiGreen = "\x1b[32m"
	ansiDim   = "\x1b[2m"
	ansiEnd   = "\x1b[0m"
)

// appendVLLMPrefix writes "(APIServer pid=9120) INFO 11-20 09:00:01 [loggers.py:271] ". Each rank
// has its own process tag, so interleaved engines stay tellable apart even without the lead.
func (r *rankSim) appendVLLMPrefix(b []byte, t time.Time, level, file string) []byte {
	if r.svc.Prefix != PrefixBare {
		if r.svc.Color {
			b = append(b, ansiCyan...)
		}
		b = append(b, "(APIServer pid="...)
		b = appendInt(b, int64(r.svc.PID+r.rankIx))
		b = append(b, ')')
		if r.svc.Color {
			b = append(b, ansiReset...)
		}
		b = append(b, ' ')
	}
	if r.svc.Color {
		b = append(b, ansiGreen...)
		b = append(b, level...)
		b = append(b, ansiEnd...)
	} else {
		b = append(b, level...)
	}
	_, m, d := t.Date()
	b = append(b, ' ')
	b = append2(b, int(m))
	b = append(b, '-')
	b = append2(b, d)
	b = append(b, ' ')
	b = appendClock(b, t)
	b = append(b, ' ')
	if r.style == VLLMV0 {
		b = append(b, file...)
		return append(b, "] "...)
	}
	if r.svc.Color {
		b = append(b, ansiDim...)
	}
	b = append(b, '[')
	b = append(b, file...)
	b = append(b, ']')
	if r.svc.Color {
		b = append(b, ansiEnd...)
	}
	return append(b, ' ')
}

func vllmFile(k LineKind, v0 bool) string {
	switch {
	case v0 && k == LineSpec:
		return "metrics.py:379"
	case v0:
		return "metrics.py:345"
	case k == LineSpec:
		return "metrics.py:96"
	}
	return "loggers.py:271"
}

// appendStats writes the engine line of a logging interval.
func (r *rankSim) appendStats(b []byte, rec *record) []byte {
	kv := 100 * float64(rec.ctx) / float64(r.svc.KVTokens)
	if r.rank != "" && r.style != VLLMV0 {
		b = append(b, r.rank...)
		b = append(b, ": "...)
	}
	if rec.format {
		b = append(b, "Avg generation throughput -> "...)
		b = appendFixed(b, rec.tps, 1)
		b = append(b, " tokens/s, Running -> "...)
		b = appendInt(b, int64(rec.running))
		b = append(b, " reqs, GPU KV cache -> "...)
		b = appendFixed(b, kv, 1)
		return append(b, '%')
	}
	b = append(b, "Avg prompt throughput: "...)
	b = appendFixed(b, rec.promptTPS, 1)
	b = append(b, " tokens/s, Avg generation throughput: "...)
	b = appendFixed(b, rec.tps, 1)
	b = append(b, " tokens/s, Running: "...)
	b = appendInt(b, int64(rec.running))
	if r.style == VLLMV0 {
		b = append(b, " reqs, Swapped: 0 reqs, Pending: "...)
		b = appendInt(b, int64(rec.queue))
		b = append(b, " reqs, GPU KV cache usage: "...)
		b = appendFixed(b, kv, 1)
		return append(b, "%, CPU KV cache usage: 0.0%."...)
	}
	b = append(b, " reqs, Waiting: "...)
	b = appendInt(b, int64(rec.queue))
	b = append(b, " reqs, GPU KV cache usage: "...)
	b = appendFixed(b, kv, 1)
	b = append(b, "%, Prefix cache hit rate: "...)
	b = appendFixed(b, r.prefixHit, 1)
	return append(b, '%')
}

// appendSpec writes the speculative line in the service's generation; every figure is derived
// from the printed counts, so Mean acceptance length = 1 + Accepted / (Drafted / k).
func (r *rankSim) appendSpec(b []byte, rec *record) []byte {
	k := r.svc.Acceptance.DraftLen
	if rec.format {
		b = append(b, "SpecDecoding metrics: acc. length -> "...)
		b = appendFixed(b, rec.commit, 2)
		b = append(b, ", accepted -> "...)
		b = appendInt(b, rec.accepted)
		b = append(b, ", drafted -> "...)
		return appendInt(b, rec.drafts2)
	}
	rate := 0.0
	if rec.drafts2 > 0 {
		rate = float64(rec.accepted) / float64(rec.drafts2)
	}
	switch r.style {
	case VLLMV0:
		emitted := rec.cumEmit
		b = append(b, "Speculative metrics: Draft acceptance rate: "...)
		b = appendFixed(b, float64(rec.cumAcc)/float64(max(1, rec.cumDraft)), 3)
		b = append(b, ", System efficiency: "...)
		b = appendFixed(b, float64(emitted)/float64(max(1, rec.cumDraft/int64(k)*int64(k+1))), 3)
		b = append(b, ", Number of speculative tokens: "...)
		b = appendInt(b, int64(k))
		b = append(b, ", Number of accepted tokens: "...)
		b = appendInt(b, rec.cumAcc)
		b = append(b, ", Number of draft tokens: "...)
		b = appendInt(b, rec.cumDraft)
		b = append(b, ", Number of emitted tokens: "...)
		b = appendInt(b, emitted)
		return append(b, '.')
	case VLLMSpecGen3:
		b = append(b, "SpecDecoding metrics: Mean acceptance length: "...)
		b = appendFixed(b, rec.commit, 2)
		b = append(b, ", Accepted throughput: "...)
		b = appendFixed(b, float64(rec.accepted)/rec.interval, 2)
		b = append(b, " tokens/s, Drafted throughput: "...)
		b = appendFixed(b, float64(rec.drafts2)/rec.interval, 2)
		b = append(b, " tokens/s, Accepted: "...)
		b = appendInt(b, rec.accepted)
		b = append(b, " tokens, Drafted: "...)
		b = appendInt(b, rec.drafts2)
		b = append(b, " tokens, "...)
		b = r.appendPositions(b, rec)
		b = append(b, ", Avg Draft acceptance rate: "...)
		b = appendFixed(b, 100*rate, 1)
		return append(b, '%')
	}
	b = append(b, "SpecDecoding metrics: Draft acceptance rate: "...)
	b = appendFixed(b, 100*rate, 1)
	if r.style == VLLMSpecGen2 {
		b = append(b, "%, Mean acceptance length: "...)
		b = appendFixed(b, rec.commit, 2)
		b = append(b, ", Accepted: "...)
	} else {
		b = append(b, "%, Accepted: "...)
	}
	b = appendInt(b, rec.accepted)
	b = append(b, " tokens, Drafted: "...)
	b = appendInt(b, rec.drafts2)
	b = append(b, " tokens"...)
	if r.style == VLLMSpecGen2 {
		b = append(b, ", "...)
		b = r.appendPositions(b, rec)
	}
	return b
}

func (r *rankSim) appendPositions(b []byte, rec *record) []byte {
	b = append(b, "Per-position acceptance rate: "...)
	for i := range r.svc.Acceptance.DraftLen {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendFixed(b, float64(rec.pos[i])/float64(rec.drafts), 3)
	}
	return b
}
