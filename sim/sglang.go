package sim

import (
	"math"
	"time"
)

// Python logger names SGLang's lines come from, for the Python default layout.
const (
	modMetrics = "sglang.srt.managers.scheduler_metrics_mixin"
	modSched   = "sglang.srt.managers.scheduler"
	modDDTree  = "sglang.srt.speculative.ddtree_worker"
	modDFlash  = "sglang.srt.speculative.dflash_worker"
)

// appendSGLangPrefix writes SGLang's logger prefix for the rank.
func (r *rankSim) appendSGLangPrefix(b []byte, t time.Time, module string) []byte {
	switch r.svc.Prefix {
	case PrefixBare:
		return b
	case PrefixPython:
		return appendPythonPrefix(b, t, "INFO", module)
	}
	b = append(b, '[')
	if r.svc.Prefix != PrefixTimeOnly {
		b = appendDate(b, t)
		b = append(b, ' ')
	}
	b = appendClock(b, t)
	if r.svc.Prefix == PrefixMillis {
		b = append(b, '.')
		b = appendFrac(b, t, 3)
	}
	if r.rank != "" {
		b = append(b, ' ')
		b = append(b, r.rank...)
	}
	return append(b, "] "...)
}

// appendPythonPrefix writes logging's default-style layout "2026-06-07 11:20:05,102 [INFO] mod: ".
func appendPythonPrefix(b []byte, t time.Time, level, module string) []byte {
	b = appendDate(b, t)
	b = append(b, ' ')
	b = appendClock(b, t)
	b = append(b, ',')
	b = appendFrac(b, t, 3)
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
		return modSched
	}
	return modMetrics
}

// appendDecode writes a Decode batch line in the service's style.
func (r *rankSim) appendDecode(b []byte, rec *record) []byte {
	spec := r.svc.Acceptance.DraftLen > 0
	if rec.format {
		b = append(b, "Decode batch, running -> "...)
		b = appendInt(b, int64(rec.running))
		b = append(b, ", tokens -> "...)
		b = appendInt(b, int64(rec.ctx))
		if spec {
			b = append(b, ", acc. length -> "...)
			b = appendFixed(b, rec.commit, 2)
		}
		b = append(b, ", gen tput -> "...)
		b = appendFixed(b, rec.tps, 2)
		return append(b, " tok/s"...)
	}
	usage := float64(rec.ctx) / float64(r.svc.KVTokens)
	switch r.style {
	case SGLangOld:
		b = append(b, "Decode batch. #running-req: "...)
	case SGLangIteration:
		b = append(b, "Decode batch ["...)
		b = appendInt(b, rec.iter)
		b = append(b, "], #running-req: "...)
	default:
		b = append(b, "Decode batch, #running-req: "...)
	}
	b = appendInt(b, int64(rec.running))
	if r.style == SGLangHybridSWA {
		swa := min(rec.ctx, 4096*rec.running)
		b = append(b, ", #full token: "...)
		b = appendInt(b, int64(rec.ctx))
		b = append(b, ", full token usage: "...)
		b = appendFixed(b, usage, 2)
		b = append(b, ", #swa token: "...)
		b = appendInt(b, int64(swa))
		b = append(b, ", swa token usage: "...)
		b = appendFixed(b, float64(swa)/float64(r.svc.KVTokens/4), 2)
	} else {
		b = append(b, ", #token: "...)
		b = appendInt(b, int64(rec.ctx))
		b = append(b, ", token usage: "...)
		b = appendFixed(b, usage, 2)
	}
	if r.style == SGLangDisagg {
		b = append(b, ", pre-allocated usage: 0.00, #prealloc-req: 0, #transfer-req: 0, #retracted-req: 0"...)
	}
	if spec {
		b = append(b, ", accept len: "...)
		b = appendFixed(b, rec.commit, 2)
		if r.style != SGLangOld {
			// Current builds: accepted drafts over proposed drafts.
			b = append(b, ", accept rate: "...)
			b = appendFixed(b, (rec.commit-1)/float64(r.svc.Acceptance.DraftLen), 2)
		}
	}
	if rec.running <= 160 { // SGLang's default cuda_graph_max_bs
		b = append(b, ", cuda graph: True"...)
	} else {
		b = append(b, ", cuda graph: False"...)
	}
	b = append(b, ", gen throughput (token/s): "...)
	b = appendFixed(b, rec.tps, 2)
	b = append(b, ", #queue-req: "...)
	b = appendInt(b, int64(rec.queue))
	if r.style == SGLangDisagg {
		b = append(b, ", "...)
	}
	return b
}

func (r *rankSim) appendPrefill(b []byte, rec *record) []byte {
	usage := float64(rec.ctx) / float64(r.svc.KVTokens)
	if r.style == SGLangOld {
		b = append(b, "Prefill batch. #new-seq: "...)
	} else {
		b = append(b, "Prefill batch, #new-seq: "...)
	}
	b = appendInt(b, int64(rec.newSeq))
	b = append(b, ", #new-token: "...)
	b = appendInt(b, int64(rec.newTok))
	b = append(b, ", #cached-token: "...)
	b = appendInt(b, int64(rec.cached))
	if r.style == SGLangOld {
		b = append(b, ", cache hit rate: "...)
		b = appendFixed(b, 100*float64(rec.cached)/float64(max(1, rec.cached+rec.newTok)), 2)
		b = append(b, "%, token usage: "...)
		b = appendFixed(b, usage, 2)
		b = append(b, ", #running-req: "...)
		b = appendInt(b, int64(rec.running))
		b = append(b, ", #queue-req: "...)
		b = appendInt(b, int64(rec.queue))
		return append(b, ", "...)
	}
	b = append(b, ", token usage: "...)
	b = appendFixed(b, usage, 2)
	b = append(b, ", #running-req: "...)
	b = appendInt(b, int64(rec.running))
	b = append(b, ", #queue-req: "...)
	b = appendInt(b, int64(rec.queue))
	b = append(b, ", #pending-token: 0, cuda graph: False, input throughput (token/s): "...)
	return appendFixed(b, rec.inputTPS, 2)
}

func (r *rankSim) appendRetract(b []byte, rec *record) []byte {
	if r.style == SGLangOld {
		b = append(b, "Decode out of memory happened. #retracted_reqs: "...)
	} else {
		b = append(b, "KV cache pool is full. Retract requests. #retracted_reqs: "...)
	}
	b = appendInt(b, int64(rec.retracted))
	return append(b, ", #new_token_ratio: 0.4000 -> 0.7000"...)
}

func (r *rankSim) appendStartup(b []byte, rec *record) []byte {
	block := int64(r.svc.Acceptance.DraftLen + 1)
	if rec.sub == 0 {
		b = append(b, "Initialized DFLASH draft runner. attention_backend=fa3, model=z-lab/Qwen3-8B-DFlash-b16, block_size="...)
		b = appendInt(b, block)
		return append(b, ", draft_window_size=2048, compact_cache=True"...)
	}
	b = append(b, "Initialized DDTree worker. block_size="...)
	b = appendInt(b, block)
	return append(b, ", tree_budget=64, max_tree_nodes=64"...)
}

// appendProfile writes a DFlash profile line: total_ms is the GPU step, split into plausible parts.
func (r *rankSim) appendProfile(b []byte, rec *record) []byte {
	total := rec.step * 1000
	if rec.format {
		b = append(b, "[DFLASH profile] bs="...)
		b = appendInt(b, int64(rec.running))
		b = append(b, " total -> "...)
		b = appendFixed(b, total, 2)
		b = append(b, "ms accept -> "...)
		return appendFixed(b, rec.commit, 2)
	}
	prepare, appendMs, cpu := 0.41, 0.30, 0.80
	wall := total - prepare - appendMs - 0.01*total
	verify := wall - cpu - 0.30
	b = append(b, "[DFLASH profile] bs="...)
	b = appendInt(b, int64(rec.running))
	b = append(b, " mode=decode can_run_cuda_graph=True prepare_ms="...)
	b = appendFixed(b, prepare, 2)
	b = append(b, " target_verify_ms="...)
	b = appendFixed(b, verify, 2)
	b = append(b, " verify_cpu_ms="...)
	b = appendFixed(b, cpu, 2)
	b = append(b, " verify_wall_ms="...)
	b = appendFixed(b, wall, 2)
	b = append(b, " append_ms="...)
	b = appendFixed(b, appendMs, 2)
	b = append(b, " total_ms="...)
	b = appendFixed(b, total, 2)
	b = append(b, " verify_cuda_ms="...)
	b = appendFixed(b, verify-0.1, 1)
	b = append(b, " step_cuda_ms="...)
	b = appendFixed(b, total-1.5, 1)
	b = append(b, " accept_sum="...)
	b = appendInt(b, int64(math.Round(rec.commit*16*float64(rec.running))))
	b = append(b, " accept_mean="...)
	return appendFixed(b, rec.commit, 2)
}
