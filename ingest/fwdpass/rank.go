package fwdpass

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/specwatch/specwatch/sample"
)

// Topology is an SGLang deployment's parallel sizes, which its log prefix depends on (a size
// of 0 is 1). vLLM's rank name needs none of it.
type Topology struct {
	DPSize, TPSize, PPSize, EPSize int
	// DPAttention: --enable-dp-attention, the DP ranks share one TP group (tp_size ranks in
	// all, tp_size/dp_size per DP rank) instead of each having its own.
	DPAttention bool
}

func one(n int) int { return max(n, 1) }

// RankLabel is the rank of data-parallel rank dp as the engine's own log lines and /metrics
// name it (parse, ingest/scrape), so that its forward passes join that series:
//
//   - vLLM: "Engine 003", the engine index its engine line prints as %03d, which is the DP rank
//     (the scrape's engine label; model/rank reads it back as dp);
//   - SGLang: its scheduler's log prefix (run_scheduler_process in
//     python/sglang/srt/managers/scheduler.py), for the one scheduler of the DP rank that
//     publishes (attn_tp_rank 0 on the last pipeline stage, _init_fpm): "DP<dp>" when dp_size
//     > 1, "PP<pp>" when pp_size > 1, "TP<tp>" when tp_size > 1, "EP<ep>" when ep_size > 1,
//     with tp = dp × tp_size/dp_size under DP attention (else 0) and ep = tp / (tp_size/ep_size).
//     One GPU: "" (no prefix), as its log lines.
//
// Tags the topology does not cover (ATTN_CP, MOE_DP) need the config's rank_labels.
func RankLabel(e sample.Engine, dp int, t Topology) string {
	if e == sample.EngineVLLM {
		return fmt.Sprintf("Engine %03d", dp)
	}
	dpSize, tpSize, ppSize, epSize := one(t.DPSize), one(t.TPSize), one(t.PPSize), one(t.EPSize)
	tp := 0
	if t.DPAttention && dpSize > 1 {
		tp = dp * max(tpSize/dpSize, 1)
	}
	var parts []string
	if dpSize > 1 {
		parts = append(parts, "DP"+strconv.Itoa(dp))
	}
	if ppSize > 1 {
		parts = append(parts, "PP"+strconv.Itoa(ppSize-1))
	}
	if tpSize > 1 {
		parts = append(parts, "TP"+strconv.Itoa(tp))
	}
	if epSize > 1 {
		parts = append(parts, "EP"+strconv.Itoa(tp/max(tpSize/epSize, 1)))
	}
	return strings.Join(parts, " ")
}
