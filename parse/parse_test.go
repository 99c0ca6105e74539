package parse

import (
	"math"
	"testing"

	"github.com/specwatch/specwatch/sample"
)

// want is what a line must yield: fields by name, plus the series key parts.
type want struct {
	r      sample.Result
	kind   sample.Kind
	engine sample.Engine
	event  sample.Event // checked when not sample.EventNone
	rank   string
	host   string
	unit   string
	f      map[sample.Field]float64
	pos    []float64
}

func check(t *testing.T, line string, w want) {
	t.Helper()
	p := NewParser(Options{})
	var s Record
	r := p.Parse([]byte(line), &s)
	if r != w.r {
		t.Fatalf("%q: result %v (%s), want %v", line, r, s.Why, w.r)
	}
	if r != sample.Matched {
		return
	}
	if s.Kind != w.kind || s.Engine != w.engine {
		t.Errorf("%q: kind/engine %v/%v, want %v/%v", line, s.Kind, s.Engine, w.kind, w.engine)
	}
	if w.event != sample.EventNone && s.Event != w.event {
		t.Errorf("%q: event %v, want %v", line, s.Event, w.event)
	}
	if string(s.Rank) != w.rank || string(s.Host) != w.host || string(s.Unit) != w.unit {
		t.Errorf("%q: rank/host/unit %q/%q/%q, want %q/%q/%q", line, s.Rank, s.Host, s.Unit, w.rank, w.host, w.unit)
	}
	for f := sample.Field(0); f < numFields; f++ {
		got, has := s.Get(f)
		exp, want := w.f[f]
		if has != want {
			t.Errorf("%q: field %v present=%v, want %v", line, f, has, want)
			continue
		}
		if want && math.Abs(got-exp) > 1e-9*math.Max(1, math.Abs(exp)) {
			t.Errorf("%q: field %v = %v, want %v", line, f, got, exp)
		}
	}
	if len(w.pos) != s.NPos {
		t.Errorf("%q: %d per-position values, want %d", line, s.NPos, len(w.pos))
	}
	for i := 0; i < len(w.pos) && i < s.NPos; i++ {
		if s.PerPos[i] != w.pos[i] {
			t.Errorf("%q: per-position[%d] = %v, want %v", line, i, s.PerPos[i], w.pos[i])
		}
	}
}

func TestSGLangDecode(t *testing.T) {
	cur := map[sample.Field]float64{sample.Running: 1, sample.Context: 5553, sample.TokenUsage: 0.01, sample.Commit: 2.9, sample.AcceptRate: 0.13, sample.Graph: 1, sample.GenTPS: 31.87, sample.Queue: 0}
	f := func(line string, w want) { t.Helper(); check(t, line, w) }
	body := "Decode batch, #running-req: 1, #token: 5553, token usage: 0.01, accept len: 2.90, accept rate: 0.13, cuda graph: True, gen throughput (token/s): 31.87, #queue-req: 0"
	f("[2026-11-20 09:00:01 TP0] "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0", f: cur})
	f("[2026-11-20 09:00:01.123 DP3 TP3 EP3] "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "DP3 TP3 EP3", f: cur})
	f("[2026-11-20 09:00:01 ATTN_CP4 MOE_DP2 PP1 TP0] "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "ATTN_CP4 MOE_DP2 PP1 TP0", f: cur})
	f("[2026-11-20 09:00:01] "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, f: cur})
	f("[13:02:11 TP0] "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0", f: cur})
	f("[gpu=0] "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "gpu=0", f: cur})
	f("2026-11-20 09:00:01 TP0] "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0", f: cur}) // lost '['
	f("2026-06-07 11:20:05,102 [INFO] sglang.srt.managers.scheduler_metrics_mixin: "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, f: cur})
	f(body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, f: cur})
	f(body+", ", want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, f: cur})
	f(body+",", want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, f: cur})
	f("Nov 20 09:00:01 gpu07 python3[48211]: [2026-11-20 09:00:01 TP1] "+body,
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP1", host: "gpu07", unit: "python3", f: cur})
	f("2026-11-20T09:00:01+0000 gpu07 sglang[48211]: [2026-11-20 09:00:01 TP0] "+body,
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0", host: "gpu07", unit: "sglang", f: cur})
	f("Nov  2 09:00:01.123456 gpu07 python3[48211]: [2026-11-02 09:00:01 TP0] "+body,
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0", host: "gpu07", unit: "python3", f: cur})
	f("sglang-1  | [2026-11-20 09:00:01 TP0] "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0", unit: "sglang-1", f: cur})
	f("2026-05-14T17:22:08.904412331Z [2026-05-14 17:22:08 TP0] "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0", f: cur})
	f("\x1b[32m[2026-11-20 09:00:01 TP0]\x1b[0m "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0", f: cur})
	f("\uFFFD[32m[2026-11-20 09:00:01 TP0]\uFFFD[0m "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0", f: cur})

	old := "[2026-11-20 09:00:01 TP0] Decode batch. #running-req: 8, #token: 20480, token usage: 0.12, accept len: 3.41, cuda graph: True, gen throughput (token/s): 1450.22, #queue-req: 0"
	f(old, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0",
		f: map[sample.Field]float64{sample.Running: 8, sample.Context: 20480, sample.TokenUsage: 0.12, sample.Commit: 3.41, sample.Graph: 1, sample.GenTPS: 1450.22, sample.Queue: 0}})
	// Order-free, optional fields, iteration counter, no speculative figures.
	f("[2026-11-20 09:00:01 TP0] Decode batch [1234], #queue-req: 2, gen throughput (token/s): 100.5, #running-req: 4, #cached-token: 12, #token: 800, token usage: 0.50, pre-allocated usage: 0.00, #prealloc-req: 0, #transfer-req: 0, #retracted-req: 0, npu graph: False, est. decode TFLOPS/s (per GPU): 12.3, est. read BW (GB/s per GPU): 800.1, fwd occupancy: 87.50%, timestamp: 2025-09-02T11:07:41.120034",
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0",
			f: map[sample.Field]float64{sample.Running: 4, sample.Context: 800, sample.TokenUsage: 0.5, sample.Graph: 0, sample.GenTPS: 100.5, sample.Queue: 2, sample.CachedTokens: 12, sample.Retracted: 0}})
	// Hybrid pools.
	f("[2026-11-20 09:00:01 TP0] Decode batch, #running-req: 2, #full token: 9000, full token usage: 0.20, #swa token: 4096, swa token usage: 0.10, accept len: 4.00, accept rate: 0.50, cuda graph: True, gen throughput (token/s): 80.00, #queue-req: 0",
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0",
			f: map[sample.Field]float64{sample.Running: 2, sample.Context: 9000, sample.TokenUsage: 0.2, sample.Commit: 4, sample.AcceptRate: 0.5, sample.Graph: 1, sample.GenTPS: 80, sample.Queue: 0}})
	f("[2026-11-20 09:00:01 TP0] Decode batch, #running-req: 2, #full token: 9000, full token usage: 0.20, mamba num: 4, mamba usage: 0.10, cuda graph: True, gen throughput (token/s): 80.00, #queue-req: 0",
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0",
			f: map[sample.Field]float64{sample.Running: 2, sample.Context: 9000, sample.TokenUsage: 0.2, sample.Graph: 1, sample.GenTPS: 80, sample.Queue: 0}})
	f("[2026-11-20 09:00:01 TP0] Decode batch, #running-req: 2, #gpu token: 7000, #cpu token: 9000, gen throughput (token/s): 80.00, #queue-req: 0",
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0",
			f: map[sample.Field]float64{sample.Running: 2, sample.Context: 7000, sample.GenTPS: 80, sample.Queue: 0}})
	// SGLang prints 0.00 when no verify step ran: absent, not a commit length of zero.
	f("Decode batch, #running-req: 1, #token: 10, accept len: 0.00, gen throughput (token/s): 0.04, #queue-req: 0",
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, f: map[sample.Field]float64{sample.Running: 1, sample.Context: 10, sample.GenTPS: 0.04, sample.Queue: 0}})
}

func TestSGLangOtherLines(t *testing.T) {
	f := func(line string, w want) { t.Helper(); check(t, line, w) }
	f("[2026-11-20 09:00:01 TP0] Prefill batch, #new-seq: 1, #new-token: 812, #cached-token: 64, token usage: 0.01, #running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: True, input throughput (token/s): 5120.44",
		want{r: sample.Matched, kind: sample.KindPrefill, engine: sample.EngineSGLang, rank: "TP0",
			f: map[sample.Field]float64{sample.NewSeqs: 1, sample.NewTokens: 812, sample.CachedTokens: 64, sample.TokenUsage: 0.01, sample.Running: 0, sample.Queue: 0, sample.PromptTPS: 5120.44}})
	f("[2026-11-20 09:00:01 TP0] Prefill batch. #new-seq: 1, #new-token: 812, #cached-token: 64, cache hit rate: 0.00%, token usage: 0.01, #running-req: 0, #queue-req: 0, ",
		want{r: sample.Matched, kind: sample.KindPrefill, engine: sample.EngineSGLang, rank: "TP0",
			f: map[sample.Field]float64{sample.NewSeqs: 1, sample.NewTokens: 812, sample.CachedTokens: 64, sample.TokenUsage: 0.01, sample.Running: 0, sample.Queue: 0}})
	f("new fill batch. #seq: 2. #cached_token: 128. #new_token: 904. #remaining_req: 12. #running_req: 4. tree_cache_hit_rate: 12.40%",
		want{r: sample.Matched, kind: sample.KindPrefill, engine: sample.EngineSGLang,
			f: map[sample.Field]float64{sample.NewSeqs: 2, sample.CachedTokens: 128, sample.NewTokens: 904, sample.Queue: 12, sample.Running: 4}})
	f("[2026-11-20 09:00:01 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 3, #new_token_ratio: 0.4000 -> 0.7000",
		want{r: sample.Matched, kind: sample.KindEvent, engine: sample.EngineSGLang, rank: "TP0", f: map[sample.Field]float64{sample.Retracted: 3}})
	f("[2026-11-20 09:00:01 TP0] Decode out of memory happened. #retracted_reqs: 1, #new_token_ratio: 0.4000 -> 0.7000",
		want{r: sample.Matched, kind: sample.KindEvent, engine: sample.EngineSGLang, rank: "TP0", f: map[sample.Field]float64{sample.Retracted: 1}})
	f("[2026-11-20 09:00:01 TP0] Initialized DFLASH draft runner. attention_backend=fa3, model=/models/dflash, block_size=16, draft_window_size=2048, compact_cache=True",
		want{r: sample.Matched, kind: sample.KindEvent, engine: sample.EngineSGLang, rank: "TP0", f: map[sample.Field]float64{sample.BlockSize: 16}})
	f("[2026-11-20 09:00:01 TP0] Initialized DDTree worker. block_size=16, tree_budget=64, max_tree_nodes=64",
		want{r: sample.Matched, kind: sample.KindEvent, engine: sample.EngineSGLang, rank: "TP0", f: map[sample.Field]float64{sample.BlockSize: 16, sample.TreeBudget: 64}})
	f("[2026-11-20 09:00:01 TP0] DFLASH verify completed. num_correct_drafts_per_req=[3, 2, 5]",
		want{r: sample.Matched, kind: sample.KindEvent, engine: sample.EngineSGLang, rank: "TP0", f: map[sample.Field]float64{sample.Running: 3, sample.Accepted: 10, sample.Commit: 1 + 10.0/3}})
	f("[2026-11-20 09:00:01 TP0] [DFLASH profile] bs=1 mode=decode can_run_cuda_graph=True prepare_ms=0.41 target_verify_ms=96.20 verify_cpu_ms=0.80 verify_wall_ms=97.30 append_ms=0.30 total_ms=101.30 verify_cuda_ms=96.1 step_cuda_ms=99.8 accept_sum=46 accept_mean=2.88",
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0",
			f: map[sample.Field]float64{sample.Running: 1, sample.Graph: 1, sample.StepSeconds: 0.1013, sample.Commit: 2.88}})
}

func TestGenericKeyValue(t *testing.T) {
	f := func(line string, w want) { t.Helper(); check(t, line, w) }
	f("avg_commit_len=2.90, avg_accepted_depth=1.90, step_ms=101.3",
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineGeneric, f: map[sample.Field]float64{sample.Commit: 2.9, sample.AcceptedDepth: 1.9, sample.StepSeconds: 0.1013}})
	f("ddtree stats avg_commit_len=2.90 avg_accepted_drafts=1.90 step_time=0.1013",
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineGeneric, f: map[sample.Field]float64{sample.Commit: 2.9, sample.AcceptedDrafts: 1.9, sample.StepSeconds: 0.1013}})
	f("avg_commit_len=2.90 avg_accepted_drafts=1.90 num_accepted_drafts=135 step_time=101.3",
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineGeneric, f: map[sample.Field]float64{sample.Commit: 2.9, sample.AcceptedDrafts: 1.9, sample.Accepted: 135, sample.StepSeconds: 0.1013}})
	f("avg_commit_len=2.90 step_time=101.3ms",
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineGeneric, f: map[sample.Field]float64{sample.Commit: 2.9, sample.StepSeconds: 0.1013}})
	// Under an SGLang prefix the statistics join the SGLang series.
	f("[2026-11-20 09:00:01 TP0] avg_commit_len=1.00, avg_accepted_depth=3.00",
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0", f: map[sample.Field]float64{sample.Commit: 1, sample.AcceptedDepth: 3}})
	f("INFO:     127.0.0.1:54321 - \"GET /health?x=1 HTTP/1.1\" 200 OK", want{r: sample.Ignored})
	// SGLang's launch line is its start-up event (a restart), never key=value statistics.
	f("server_args=ServerArgs(model_path='x', tp_size=8, speculative_num_steps=3)", want{r: sample.Matched, kind: sample.KindEvent, engine: sample.EngineSGLang, event: sample.EventRestart})
}

func TestVLLM(t *testing.T) {
	f := func(line string, w want) { t.Helper(); check(t, line, w) }
	eng := map[sample.Field]float64{sample.PromptTPS: 1204.7, sample.GenTPS: 96.4, sample.Running: 2, sample.Queue: 0, sample.KVUsage: 0.073}
	body := "Engine 000: Avg prompt throughput: 1204.7 tokens/s, Avg generation throughput: 96.4 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 7.3%, Prefix cache hit rate: 41.2%"
	f("INFO 11-20 09:00:01 [loggers.py:271] "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineVLLM, rank: "Engine 000", f: eng})
	f("(APIServer pid=9120) INFO 11-20 09:00:01 [loggers.py:271] "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineVLLM, rank: "Engine 000", f: eng})
	f("\x1b[1;36m(APIServer pid=9120)\x1b[0;0m INFO 11-20 09:00:01 [loggers.py:271] "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineVLLM, rank: "Engine 000", f: eng})
	f("vllm-1  | (APIServer pid=9120) INFO 11-20 09:00:01 [loggers.py:271] "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineVLLM, rank: "Engine 000", unit: "vllm-1", f: eng})
	f("2026-05-14T17:22:08.904412331Z INFO 05-14 17:22:08 [loggers.py:271] "+body, want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineVLLM, rank: "Engine 000", f: eng})
	f("INFO 11-20 09:00:01 [loggers.py:271] 2 Engines Aggregated: Avg prompt throughput: 1204.7 tokens/s, Avg generation throughput: 96.4 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 7.3%, Prefix cache hit rate: 41.2%, Deferred: 1 reqs, Preemptions: 0, Corrupted: 0 reqs, External prefix cache hit rate: 0.0%, MM cache hit rate: 0.0%",
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineVLLM, rank: "2 Engines Aggregated", f: eng})
	f("INFO 11-20 09:00:01 [loggers.py:271] Avg prompt throughput: 1204.7 tokens/s, Avg generation throughput: 96.4 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 7.3%",
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineVLLM, f: eng})
	f("INFO 11-20 09:00:01 metrics.py:345] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 35.2 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.4%, CPU KV cache usage: 0.0%.",
		want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineVLLM, f: map[sample.Field]float64{sample.PromptTPS: 0, sample.GenTPS: 35.2, sample.Running: 1, sample.Queue: 0, sample.KVUsage: 0.004}})

	f("INFO 11-20 09:00:01 [metrics.py:96] SpecDecoding metrics: Draft acceptance rate: 62.5%, Accepted: 150 tokens, Drafted: 240 tokens",
		want{r: sample.Matched, kind: sample.KindSpec, engine: sample.EngineVLLM, f: map[sample.Field]float64{sample.AcceptRate: 0.625, sample.Accepted: 150, sample.Drafted: 240}})
	f("INFO 11-20 09:00:01 [metrics.py:96] SpecDecoding metrics: Draft acceptance rate: 62.5%, Mean acceptance length: 2.88, Accepted: 150 tokens, Drafted: 240 tokens, Per-position acceptance rate: 0.750, 0.625, 0.500",
		want{r: sample.Matched, kind: sample.KindSpec, engine: sample.EngineVLLM, f: map[sample.Field]float64{sample.AcceptRate: 0.625, sample.Commit: 2.88, sample.Accepted: 150, sample.Drafted: 240}, pos: []float64{0.75, 0.625, 0.5}})
	f("(APIServer pid=9120) INFO 11-20 09:00:01 [metrics.py:96] SpecDecoding metrics: Mean acceptance length: 2.37, Accepted throughput: 41.10 tokens/s, Drafted throughput: 90.00 tokens/s, Accepted: 411 tokens, Drafted: 900 tokens, Per-position acceptance rate: 0.701, 0.452, 0.217, Avg Draft acceptance rate: 45.7%",
		want{r: sample.Matched, kind: sample.KindSpec, engine: sample.EngineVLLM,
			f:   map[sample.Field]float64{sample.Commit: 2.37, sample.AcceptedTPS: 41.1, sample.DraftedTPS: 90, sample.Accepted: 411, sample.Drafted: 900, sample.AcceptRate: 0.457},
			pos: []float64{0.701, 0.452, 0.217}})
	f("INFO 11-20 09:00:01 [spec_decode/metrics.py:88] Speculative metrics: Draft acceptance rate: 0.571, System efficiency: 0.457, Number of speculative tokens: 4, Number of accepted tokens: 4552, Number of draft tokens: 7972, Number of emitted tokens: 6545.",
		want{r: sample.Matched, kind: sample.KindSpec, engine: sample.EngineVLLM,
			f: map[sample.Field]float64{sample.AcceptRate: 0.571, sample.SpecTokens: 4, sample.Accepted: 4552, sample.Drafted: 7972, sample.Emitted: 6545, sample.Commit: 6545 * 4.0 / 7972}})
	f("Speculative metrics: Draft acceptance rate: 0.571, System efficiency: 0.457, Number of speculative tokens: 4, Number of accepted tokens: 4552, Number of draft tokens tokens: 7972, Number of emitted tokens: 6545.",
		want{r: sample.Matched, kind: sample.KindSpec, engine: sample.EngineVLLM,
			f: map[sample.Field]float64{sample.AcceptRate: 0.571, sample.SpecTokens: 4, sample.Accepted: 4552, sample.Drafted: 7972, sample.Emitted: 6545, sample.Commit: 6545 * 4.0 / 7972}})
	fifteen := "SpecDecoding metrics: Mean acceptance length: 3.10, Accepted: 2100 tokens, Drafted: 15000 tokens, Per-position acceptance rate: 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.09, 0.08, 0.07, 0.06, 0.05, 0.04, Avg Draft acceptance rate: 14.0%"
	f(fifteen, want{r: sample.Matched, kind: sample.KindSpec, engine: sample.EngineVLLM,
		f:   map[sample.Field]float64{sample.Commit: 3.1, sample.Accepted: 2100, sample.Drafted: 15000, sample.AcceptRate: 0.14},
		pos: []float64{0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.09, 0.08, 0.07, 0.06, 0.05, 0.04}})
}

func TestLlamaCpp(t *testing.T) {
	check(t, "draft acceptance rate = 0.58824 (  600 accepted /  1020 generated)",
		want{r: sample.Matched, kind: sample.KindSpec, engine: sample.EngineLlamaCpp, f: map[sample.Field]float64{sample.AcceptRate: 0.58824, sample.Accepted: 600, sample.Drafted: 1020}})
	check(t, "slot print_timing: id  0 | task 5 | draft acceptance rate = 0.50000 (   10 accepted /    20 generated)",
		want{r: sample.Matched, kind: sample.KindSpec, engine: sample.EngineLlamaCpp, f: map[sample.Field]float64{sample.AcceptRate: 0.5, sample.Accepted: 10, sample.Drafted: 20}})
}
