package enginelog

import (
	"time"

	"github.com/specwatch/specwatch/sim/internal/appendtext"
)

// ANSI sequences vLLM uses: the process tag in bold cyan, the level in green, the source dim.
const (
	ansiCyan  = "\x1b[1;36m"
	ansiReset = "\x1b[0;0m"
	ansiGreen = "\x1b[32m"
	ansiDim   = "\x1b[2m"
	ansiEnd   = "\x1b[0m"
)

// AppendVLLMPrefix writes "(APIServer pid=9120) INFO 11-20 09:00:01 [loggers.py:271] ". Each rank
// has its own process tag, so interleaved engines stay tellable apart even without the lead.
func (w *Writer) AppendVLLMPrefix(b []byte, t time.Time, level, file string) []byte {
	if w.Prefix != PrefixBare {
		b = w.AppendProcessTag(b, w.PID)
	}
	if w.Color {
		b = append(b, ansiGreen...)
		b = append(b, level...)
		b = append(b, ansiEnd...)
	} else {
		b = append(b, level...)
	}
	_, m, d := t.Date()
	b = append(b, ' ')
	b = appendtext.Digits2(b, int(m))
	b = append(b, '-')
	b = appendtext.Digits2(b, d)
	b = append(b, ' ')
	b = appendtext.Clock(b, t)
	b = append(b, ' ')
	if w.Style == VLLMV0 {
		b = append(b, file...)
		return append(b, "] "...)
	}
	if w.Color {
		b = append(b, ansiDim...)
	}
	b = append(b, '[')
	b = append(b, file...)
	b = append(b, ']')
	if w.Color {
		b = append(b, ansiEnd...)
	}
	return append(b, ' ')
}

// AppendProcessTag writes vLLM's "(APIServer pid=9120) ", which its uvicorn access lines carry
// too, with the API server's pid rather than a rank's.
func (w *Writer) AppendProcessTag(b []byte, pid int) []byte {
	if w.Color {
		b = append(b, ansiCyan...)
	}
	b = append(b, "(APIServer pid="...)
	b = appendtext.Int(b, int64(pid))
	b = append(b, ')')
	if w.Color {
		b = append(b, ansiReset...)
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
func (w *Writer) appendStats(b []byte, rec *Record) []byte {
	kv := 100 * float64(rec.Ctx) / float64(w.KVTokens)
	if w.Rank != "" && w.Style != VLLMV0 {
		b = append(b, w.Rank...)
		b = append(b, ": "...)
	}
	if rec.Renamed {
		b = append(b, "Avg generation throughput -> "...)
		b = appendtext.Fixed(b, rec.TPS, 1)
		b = append(b, " tokens/s, Running -> "...)
		b = appendtext.Int(b, int64(rec.Running))
		b = append(b, " reqs, GPU KV cache -> "...)
		b = appendtext.Fixed(b, kv, 1)
		return append(b, '%')
	}
	b = append(b, "Avg prompt throughput: "...)
	b = appendtext.Fixed(b, rec.PromptTPS, 1)
	b = append(b, " tokens/s, Avg generation throughput: "...)
	b = appendtext.Fixed(b, rec.TPS, 1)
	b = append(b, " tokens/s, Running: "...)
	b = appendtext.Int(b, int64(rec.Running))
	if w.Style == VLLMV0 {
		b = append(b, " reqs, Swapped: 0 reqs, Pending: "...)
		b = appendtext.Int(b, int64(rec.Queue))
		b = append(b, " reqs, GPU KV cache usage: "...)
		b = appendtext.Fixed(b, kv, 1)
		return append(b, "%, CPU KV cache usage: 0.0%."...)
	}
	b = append(b, " reqs, Waiting: "...)
	b = appendtext.Int(b, int64(rec.Queue))
	b = append(b, " reqs, GPU KV cache usage: "...)
	b = appendtext.Fixed(b, kv, 1)
	b = append(b, "%, Prefix cache hit rate: "...)
	b = appendtext.Fixed(b, rec.PrefixHit, 1)
	return append(b, '%')
}

// appendSpec writes the speculative line in the service's generation; every figure is derived
// from the printed counts, so Mean acceptance length = 1 + Accepted / (Drafted / k).
func (w *Writer) appendSpec(b []byte, rec *Record) []byte {
	k := w.DraftLen
	if rec.Renamed {
		b = append(b, "SpecDecoding metrics: acc. length -> "...)
		b = appendtext.Fixed(b, rec.Commit, 2)
		b = append(b, ", accepted -> "...)
		b = appendtext.Int(b, rec.Accepted)
		b = append(b, ", drafted -> "...)
		return appendtext.Int(b, rec.Drafted)
	}
	rate := 0.0
	if rec.Drafted > 0 {
		rate = float64(rec.Accepted) / float64(rec.Drafted)
	}
	switch w.Style {
	case VLLMV0:
		emitted := rec.CumEmit
		b = append(b, "Speculative metrics: Draft acceptance rate: "...)
		b = appendtext.Fixed(b, float64(rec.CumAcc)/float64(max(1, rec.CumDraft)), 3)
		b = append(b, ", System efficiency: "...)
		b = appendtext.Fixed(b, float64(emitted)/float64(max(1, rec.CumDraft/int64(k)*int64(k+1))), 3)
		b = append(b, ", Number of speculative tokens: "...)
		b = appendtext.Int(b, int64(k))
		b = append(b, ", Number of accepted tokens: "...)
		b = appendtext.Int(b, rec.CumAcc)
		b = append(b, ", Number of draft tokens: "...)
		b = appendtext.Int(b, rec.CumDraft)
		b = append(b, ", Number of emitted tokens: "...)
		b = appendtext.Int(b, emitted)
		return append(b, '.')
	case VLLMSpecGen3:
		b = append(b, "SpecDecoding metrics: Mean acceptance length: "...)
		b = appendtext.Fixed(b, rec.Commit, 2)
		b = append(b, ", Accepted throughput: "...)
		b = appendtext.Fixed(b, float64(rec.Accepted)/rec.Interval, 2)
		b = append(b, " tokens/s, Drafted throughput: "...)
		b = appendtext.Fixed(b, float64(rec.Drafted)/rec.Interval, 2)
		b = append(b, " tokens/s, Accepted: "...)
		b = appendtext.Int(b, rec.Accepted)
		b = append(b, " tokens, Drafted: "...)
		b = appendtext.Int(b, rec.Drafted)
		b = append(b, " tokens, "...)
		b = w.appendPositions(b, rec)
		b = append(b, ", Avg Draft acceptance rate: "...)
		b = appendtext.Fixed(b, 100*rate, 1)
		return append(b, '%')
	}
	b = append(b, "SpecDecoding metrics: Draft acceptance rate: "...)
	b = appendtext.Fixed(b, 100*rate, 1)
	if w.Style == VLLMSpecGen2 {
		b = append(b, "%, Mean acceptance length: "...)
		b = appendtext.Fixed(b, rec.Commit, 2)
		b = append(b, ", Accepted: "...)
	} else {
		b = append(b, "%, Accepted: "...)
	}
	b = appendtext.Int(b, rec.Accepted)
	b = append(b, " tokens, Drafted: "...)
	b = appendtext.Int(b, rec.Drafted)
	b = append(b, " tokens"...)
	if w.Style == VLLMSpecGen2 {
		b = append(b, ", "...)
		b = w.appendPositions(b, rec)
	}
	return b
}

func (w *Writer) appendPositions(b []byte, rec *Record) []byte {
	b = append(b, "Per-position acceptance rate: "...)
	for i := range w.DraftLen {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendtext.Fixed(b, float64(rec.Pos[i])/float64(rec.Drafts), 3)
	}
	return b
}
