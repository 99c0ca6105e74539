package enginelog

import (
	"math"
	"time"

	"github.com/specwatch/specwatch/sim/internal/appendtext"
)

// Python logger names SGLang's lines come from, for the Python default layout.
const (
	modMetrics = "sglang.srt.managers.scheduler_metrics_mixin"
	// ModScheduler is the scheduler's logger, which also writes SGLang's marker-free chatter.
	ModScheduler = "sglang.srt.managers.scheduler"
	modDDTree    = "sglang.srt.speculative.ddtree_worker"
	modDFlash    = "sglang.srt.speculative.dflash_worker"
	modAdaptive  = "sglang.srt.speculative.adaptive_spec_params"
)

// AppendSGLangPrefix writes SGLang's logger prefix for the rank.
func (w *Writer) AppendSGLangPrefix(b []byte, t time.Time, module string) []byte {
	switch w.Prefix {
	case PrefixBare:
		return b
	case PrefixPython:
		return AppendPythonPrefix(b, t, "INFO", module)
	}
	b = append(b, '[')
	if w.Prefix != PrefixTimeOnly {
		b = appendtext.Date(b, t)
		b = append(b, ' ')
	}
	b = appendtext.Clock(b, t)
	if w.Prefix == PrefixMillis {
		b = append(b, '.')
		b = appendtext.Frac(b, t, 3)
	}
	if w.Rank != "" {
		b = append(b, ' ')
		b = append(b, w.Rank...)
	}
	return append(b, "] "...)
}

// AppendPythonPrefix writes logging's default-style layout "2026-06-07 11:20:05,102 [INFO] mod: ".
func AppendPythonPrefix(b []byte, t time.Time, level, module string) []byte {
	b = appendtext.Date(b, t)
	b = append(b, ' ')
	b = appendtext.Clock(b, t)
	b = append(b, ',')
	b = appendtext.Frac(b, t, 3)
	b = append(b, " ["...)
	b = append(b, level...)
	b = append(b, "] "...)
	b = append(b, module...)
	return append(b, ": "...)
}

func sglangModule(k LineKind) string {
	switch k {
	case LineCustom, LineStartup:
		return modDDTree
	case LineProfile:
		return modDFlash
	case LineRetract:
		return ModScheduler
	case LineAdaptive:
		return modAdaptive
	}
	return modMetrics
}

// appendAdaptive writes SGLang's switch of its adaptive draft steps
// (python/sglang/srt/speculative/adaptive_spec_params.py, _apply_target_steps).
func (w *Writer) appendAdaptive(b []byte, rec *Record) []byte {
	b = append(b, "Adaptive spec params updated: steps "...)
	b = appendtext.Int(b, int64(rec.StepsFrom))
	b = append(b, " -> "...)
	b = appendtext.Int(b, int64(rec.Steps))
	b = append(b, " (ema_accept_len="...)
	b = appendtext.Fixed(b, rec.Depth, 2)
	return append(b, ')')
}

// appendDecode writes a Decode batch line in the service's style.
func (w *Writer) appendDecode(b []byte, rec *Record) []byte {
	spec := w.DraftLen > 0
	if rec.Renamed {
		b = append(b, "Decode batch, running -> "...)
		b = appendtext.Int(b, int64(rec.Running))
		b = append(b, ", tokens -> "...)
		b = appendtext.Int(b, int64(rec.Ctx))
		if spec {
			b = append(b, ", acc. length -> "...)
			b = appendtext.Fixed(b, rec.Commit, 2)
		}
		b = append(b, ", gen tput -> "...)
		b = appendtext.Fixed(b, rec.TPS, 2)
		return append(b, " tok/s"...)
	}
	usage := float64(rec.Ctx) / float64(w.KVTokens)
	switch w.Style {
	case SGLangOld:
		b = append(b, "Decode batch. #running-req: "...)
	case SGLangIteration:
		b = append(b, "Decode batch ["...)
		b = appendtext.Int(b, rec.Iter)
		b = append(b, "], #running-req: "...)
	default:
		b = append(b, "Decode batch, #running-req: "...)
	}
	b = appendtext.Int(b, int64(rec.Running))
	if w.Style == SGLangHybridSWA {
		swa := min(rec.Ctx, 4096*rec.Running)
		b = append(b, ", #full token: "...)
		b = appendtext.Int(b, int64(rec.Ctx))
		b = append(b, ", full token usage: "...)
		b = appendtext.Fixed(b, usage, 2)
		b = append(b, ", #swa token: "...)
		b = appendtext.Int(b, int64(swa))
		b = append(b, ", swa token usage: "...)
		b = appendtext.Fixed(b, float64(swa)/float64(w.KVTokens/4), 2)
	} else {
		b = append(b, ", #token: "...)
		b = appendtext.Int(b, int64(rec.Ctx))
		b = append(b, ", token usage: "...)
		b = appendtext.Fixed(b, usage, 2)
	}
	if w.Style == SGLangDisagg {
		b = append(b, ", pre-allocated usage: 0.00, #prealloc-req: 0, #transfer-req: 0, #retracted-req: 0"...)
	}
	if spec {
		b = append(b, ", accept len: "...)
		b = appendtext.Fixed(b, rec.Commit, 2)
		if w.Style != SGLangOld {
			// Current builds: accepted drafts over proposed drafts.
			b = append(b, ", accept rate: "...)
			b = appendtext.Fixed(b, (rec.Commit-1)/float64(w.DraftLen), 2)
		}
	}
	if rec.Running <= 160 { // SGLang's default cuda_graph_max_bs
		b = append(b, ", cuda graph: True"...)
	} else {
		b = append(b, ", cuda graph: False"...)
	}
	b = append(b, ", gen throughput (token/s): "...)
	b = appendtext.Fixed(b, rec.TPS, 2)
	b = append(b, ", #queue-req: "...)
	b = appendtext.Int(b, int64(rec.Queue))
	if w.Style == SGLangDisagg {
		b = append(b, ", "...)
	}
	return b
}

func (w *Writer) appendPrefill(b []byte, rec *Record) []byte {
	usage := float64(rec.Ctx) / float64(w.KVTokens)
	if w.Style == SGLangOld {
		b = append(b, "Prefill batch. #new-seq: "...)
	} else {
		b = append(b, "Prefill batch, #new-seq: "...)
	}
	b = appendtext.Int(b, int64(rec.NewSeq))
	b = append(b, ", #new-token: "...)
	b = appendtext.Int(b, int64(rec.NewTok))
	b = append(b, ", #cached-token: "...)
	b = appendtext.Int(b, int64(rec.Cached))
	if w.Style == SGLangOld {
		b = append(b, ", cache hit rate: "...)
		b = appendtext.Fixed(b, 100*float64(rec.Cached)/float64(max(1, rec.Cached+rec.NewTok)), 2)
		b = append(b, "%, token usage: "...)
		b = appendtext.Fixed(b, usage, 2)
		b = append(b, ", #running-req: "...)
		b = appendtext.Int(b, int64(rec.Running))
		b = append(b, ", #queue-req: "...)
		b = appendtext.Int(b, int64(rec.Queue))
		return append(b, ", "...)
	}
	b = append(b, ", token usage: "...)
	b = appendtext.Fixed(b, usage, 2)
	b = append(b, ", #running-req: "...)
	b = appendtext.Int(b, int64(rec.Running))
	b = append(b, ", #queue-req: "...)
	b = appendtext.Int(b, int64(rec.Queue))
	b = append(b, ", #pending-token: 0, cuda graph: False, input throughput (token/s): "...)
	return appendtext.Fixed(b, rec.InputTPS, 2)
}

func (w *Writer) appendRetract(b []byte, rec *Record) []byte {
	if w.Style == SGLangOld {
		b = append(b, "Decode out of memory happened. #retracted_reqs: "...)
	} else {
		b = append(b, "KV cache pool is full. Retract requests. #retracted_reqs: "...)
	}
	b = appendtext.Int(b, int64(rec.Retracted))
	return append(b, ", #new_token_ratio: 0.4000 -> 0.7000"...)
}

func (w *Writer) appendStartup(b []byte, rec *Record) []byte {
	block := int64(w.DraftLen + 1)
	if rec.Sub == 0 {
		b = append(b, "Initialized DFLASH draft runner. attention_backend=fa3, model=z-lab/Qwen3-8B-DFlash-b16, block_size="...)
		b = appendtext.Int(b, block)
		return append(b, ", draft_window_size=2048, compact_cache=True"...)
	}
	b = append(b, "Initialized DDTree worker. block_size="...)
	b = appendtext.Int(b, block)
	return append(b, ", tree_budget=64, max_tree_nodes=64"...)
}

// appendProfile writes a DFlash profile line: total_ms is the GPU step, split into plausible parts.
func (w *Writer) appendProfile(b []byte, rec *Record) []byte {
	total := rec.Step * 1000
	if rec.Renamed {
		b = append(b, "[DFLASH profile] bs="...)
		b = appendtext.Int(b, int64(rec.Running))
		b = append(b, " total -> "...)
		b = appendtext.Fixed(b, total, 2)
		b = append(b, "ms accept -> "...)
		return appendtext.Fixed(b, rec.Commit, 2)
	}
	prepare, appendMs, cpu := 0.41, 0.30, 0.80
	wall := total - prepare - appendMs - 0.01*total
	verify := wall - cpu - 0.30
	b = append(b, "[DFLASH profile] bs="...)
	b = appendtext.Int(b, int64(rec.Running))
	b = append(b, " mode=decode can_run_cuda_graph=True prepare_ms="...)
	b = appendtext.Fixed(b, prepare, 2)
	b = append(b, " target_verify_ms="...)
	b = appendtext.Fixed(b, verify, 2)
	b = append(b, " verify_cpu_ms="...)
	b = appendtext.Fixed(b, cpu, 2)
	b = append(b, " verify_wall_ms="...)
	b = appendtext.Fixed(b, wall, 2)
	b = append(b, " append_ms="...)
	b = appendtext.Fixed(b, appendMs, 2)
	b = append(b, " total_ms="...)
	b = appendtext.Fixed(b, total, 2)
	b = append(b, " verify_cuda_ms="...)
	b = appendtext.Fixed(b, verify-0.1, 1)
	b = append(b, " step_cuda_ms="...)
	b = appendtext.Fixed(b, total-1.5, 1)
	b = append(b, " accept_sum="...)
	b = appendtext.Int(b, int64(math.Round(rec.Commit*16*float64(rec.Running))))
	b = append(b, " accept_mean="...)
	return appendtext.Fixed(b, rec.Commit, 2)
}
