package enginelog

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/specwatch/specwatch/sim/internal/appendtext"
)

// TensorRT-LLM's lines: PyExecutor's iteration log (print_iter_log, profile_step in
// tensorrt_llm/_torch/pyexecutor/py_executor.py) and the SpeculationGate's switch
// (tensorrt_llm/_torch/speculative/speculation_gate.py), behind its logger (docs/formats.md).

// AppendTRTLLMPrefix writes Python logging's "[11/20/2026-09:00:01] " (format
// '[%(asctime)s] %(message)s', datefmt '%m/%d/%Y-%H:%M:%S'; PrefixBare leaves it out), then
// what Logger.log puts in the message: "[TRT-LLM] ", "[RANK n] " in a world of more than one
// rank, and the severity "[I] ".
func (w *Writer) AppendTRTLLMPrefix(b []byte, t time.Time) []byte {
	if w.Prefix != PrefixBare {
		b = append(b, '[')
		b = appendtext.Digits2(b, int(t.Month()))
		b = append(b, '/')
		b = appendtext.Digits2(b, t.Day())
		b = append(b, '/')
		b = appendtext.Digits4(b, t.Year())
		b = append(b, '-')
		b = appendtext.Clock(b, t)
		b = append(b, "] "...)
	}
	b = append(b, "[TRT-LLM] "...)
	if w.World > 1 {
		b = append(b, "[RANK "...)
		b = w.appendRankNumber(b)
		b = append(b, "] "...)
	}
	return append(b, "[I] "...)
}

// appendRankNumber writes the rank's number: Rank is "" for rank 0 and the number otherwise,
// as specwatch keys TensorRT-LLM's series.
func (w *Writer) appendRankNumber(b []byte) []byte {
	if w.Rank == "" {
		return append(b, '0')
	}
	return append(b, w.Rank...)
}

// appendIteration writes one iteration in the Writer's style, as profile_step's f-strings do:
// Python's repr of the float step times, kv_cache_util with 3 decimals, the model engine's
// iter_states dict last. num_generation_tokens is one token per generation request plus its
// draft tokens (model_engine.py).
func (w *Writer) appendIteration(b []byte, t time.Time, rec *Record) []byte {
	sched := int64(rec.Running + rec.NewSeq)
	b = append(b, "iter = "...)
	b = appendtext.Int(b, rec.Iter)
	b = append(b, ", global_rank = "...)
	b = w.appendRankNumber(b)
	b = append(b, ", rank = "...)
	b = w.appendRankNumber(b)
	if w.Style == TRTLLMCurrent {
		b = append(b, ", num_scheduled_requests = "...)
		b = appendtext.Int(b, sched)
		b = append(b, ", adp_dummy_ctx_tokens = 0, adp_dummy_gen_tokens = 0, kv_cache_util = "...)
		b = appendtext.Fixed(b, float64(rec.Ctx)/float64(max(w.KVTokens, 1)), 3)
	}
	b = append(b, ", currank_total_requests = "...)
	b = appendtext.Int(b, int64(rec.Fetched))
	b = append(b, '/')
	b = appendtext.Int(b, int64(rec.Fetched))
	if w.Style == TRTLLMElapsed {
		b = append(b, ", elapsed_time = "...)
		b = appendRepr(b, rec.Step)
		b = append(b, 's')
	} else {
		b = append(b, ", host_step_time = "...)
		b = appendRepr(b, rec.Step*1000)
		b = append(b, "ms, prev_device_step_time = "...)
		if rec.Device > 0 {
			// torch.cuda.Event.elapsed_time is a C float, repr'd as a Python float.
			b = appendRepr(b, float64(float32(rec.Device*1000)))
			b = append(b, "ms"...)
		} else {
			b = append(b, "N/A"...)
		}
	}
	b = append(b, ", timestamp = "...)
	b = appendtext.Date(b, t)
	b = append(b, ' ')
	b = appendtext.Clock(b, t)
	if w.Style != TRTLLMCurrent {
		b = append(b, ", num_scheduled_requests: "...)
		b = appendtext.Int(b, sched)
	}
	b = append(b, ", states = {'num_ctx_requests': "...)
	b = appendtext.Int(b, int64(rec.NewSeq))
	b = append(b, ", 'num_ctx_tokens': "...)
	b = appendtext.Int(b, int64(rec.NewTok))
	b = append(b, ", 'num_generation_tokens': "...)
	b = appendtext.Int(b, int64(rec.Running)+rec.Drafted)
	b = append(b, '}')
	if w.Style != TRTLLMCurrent {
		return b
	}
	// Attention-DP observability: the active requests (the scheduled and those waiting for
	// room, Queue), the ones fetched since the previous line (the context requests here), no
	// dummy requests.
	b = append(b, ", num_active = "...)
	b = appendtext.Int(b, sched+int64(rec.Queue))
	b = append(b, ", num_fetched = "...)
	b = appendtext.Int(b, int64(rec.NewSeq))
	b = append(b, ", num_dummy = 0, num_unscheduled = "...)
	return appendtext.Int(b, int64(rec.Queue))
}

// appendGate writes the SpeculationGate turning speculation off for good: the rolling mean of
// accepted drafts (Depth) below the threshold (Commit) over the last Slot requests.
func (w *Writer) appendGate(b []byte, rec *Record) []byte {
	b = append(b, "[SpeculationGate] Speculative decoding disabled: rolling acceptance avg "...)
	b = appendtext.Fixed(b, rec.Depth, 3)
	b = append(b, " < threshold "...)
	b = appendRepr(b, rec.Commit)
	b = append(b, " over last "...)
	b = appendtext.Int(b, int64(rec.Slot))
	return append(b, " requests"...)
}

// appendRepr writes x as Python's repr of a float does for the magnitudes printed here (1e-4
// to 1e16): the shortest digits that read back as x, and ".0" when they are a whole number.
func appendRepr(b []byte, x float64) []byte {
	start := len(b)
	b = strconv.AppendFloat(b, x, 'f', -1, 64)
	for _, c := range b[start:] {
		if c == '.' {
			return b
		}
	}
	return append(b, ".0"...)
}

// CheckTRTLLM checks what TensorRT-LLM's lines can say of a service of engine e: ranks by
// number ("" for rank 0, as specwatch keys them), and a SpeculationGate that never turns
// speculation back on (onAgain).
func CheckTRTLLM(e Engine, ranks []string, onAgain bool) error {
	if e != TRTLLM {
		return nil
	}
	for _, r := range ranks {
		if n, err := strconv.Atoi(r); r != "" && (err != nil || n <= 0 || strconv.Itoa(n) != r) {
			return fmt.Errorf("rank %q: TensorRT-LLM ranks are \"\" (rank 0) or a number", r)
		}
	}
	if onAgain {
		return errors.New("TensorRT-LLM's SpeculationGate turns speculation off for good: no OnFrom")
	}
	return nil
}
