package parse

import (
	"testing"

	"github.com/specwatch/specwatch/sample"
)

// formatCase is one variant of an engine's statistics line, written exactly as the engine's
// format string prints it, with the commit length worked out by hand from the line's counts
// (the comment beside each says how). docs/formats.md lists the same variants with the engine
// versions that print them.
type formatCase struct {
	name string
	line string
	w    want
}

// TestEngineFormats is the table of issue 19: every variant must give the right commit length
// (accepted drafts + the bonus token per verify step), or none where the line holds none, and
// never a plausible wrong one.
func TestEngineFormats(t *testing.T) {
	const (
		vllmPrefix = "(APIServer pid=9120) INFO 05-02 10:00:01 [loggers.py:116] "
		sgl        = "[2026-11-20 09:00:01 TP0] "
		slot       = "0.06.896.015 I slot print_timing: id  1 | task 0 | "
	)
	spec := func(f map[sample.Field]float64, pos ...float64) want {
		return want{r: sample.Matched, kind: sample.KindSpec, engine: sample.EngineVLLM, f: f, pos: pos}
	}
	llama := func(f map[sample.Field]float64, pos ...float64) want {
		return want{r: sample.Matched, kind: sample.KindSpec, engine: sample.EngineLlamaCpp, event: sample.EventPart, f: f, pos: pos}
	}
	cases := []formatCase{
		// llama.cpp server, per request: parts of its join (llamajoin.go). Their mean is 1 +
		// accepted / drafting steps, never a commit length: the join's request has that.
		{"llama.cpp slot: rate only", slot + "draft acceptance rate = 0.58824 (  600 accepted /  1020 generated)",
			llama(map[sample.Field]float64{sample.AcceptRate: 0.58824, sample.Accepted: 600, sample.Drafted: 1020})},
		{"llama.cpp slot: mean acceptance length and per position", slot + "draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.92, acceptance rate per position = (0.805, 0.632, 0.483)",
			llama(map[sample.Field]float64{sample.AcceptRate: 0.64479, sample.Accepted: 167, sample.Drafted: 259}, 0.805, 0.632, 0.483)},
		{"llama.cpp slot: mean acceptance length, drafts never verified", slot + "draft acceptance = 0.00000 (    0 accepted /    12 generated), mean acceptance length =  1.00, acceptance rate per position = ()",
			llama(map[sample.Field]float64{sample.AcceptRate: 0, sample.Accepted: 0, sample.Drafted: 12})},
		{"llama.cpp slot: mean len", "0.22.856.327 I slot print_timing: id  3 | task 0 | draft acceptance = 0.76049 (  308 accepted /   405 generated), mean len =  2.52",
			llama(map[sample.Field]float64{sample.AcceptRate: 0.76049, sample.Accepted: 308, sample.Drafted: 405})},
		{"llama.cpp slot: mean len of n-gram drafts", "0.03.750.843 I slot print_timing: id  0 | task 0 | draft acceptance = 1.00000 (  157 accepted /   157 generated), mean len = 53.33",
			llama(map[sample.Field]float64{sample.AcceptRate: 1, sample.Accepted: 157, sample.Drafted: 157})},
		{"llama.cpp slot: mean len, no prefix", "draft acceptance = 1.00000 (    4 accepted /     4 generated), mean len =  3.00",
			llama(map[sample.Field]float64{sample.AcceptRate: 1, sample.Accepted: 4, sample.Drafted: 4})},
		{"llama.cpp slot: broken drafter", "0.06.074.334 I slot print_timing: id  0 | task 0 | draft acceptance = 0.00000 (    0 accepted /   980 generated), mean len =  1.00",
			llama(map[sample.Field]float64{sample.AcceptRate: 0, sample.Accepted: 0, sample.Drafted: 980})},

		// llama.cpp common_speculative statistics: cumulative since the server started; the mean
		// is per drafting step, so no commit length, printed or derived.
		{"llama.cpp statistics: counts only", "statistics            draft: #calls(b,g,a) =    1    203    203, #gen drafts =    203, #acc drafts =   172, #gen tokens =    405, #acc tokens =   308",
			totals(map[sample.Field]float64{sample.Accepted: 308, sample.Drafted: 405})},
		{"llama.cpp statistics: nothing drafted", "statistics        ngram-mod: #calls(b,g,a) =    1      7      0, #gen drafts =      0, #acc drafts =     0, #gen tokens =      0, #acc tokens =     0, dur(b,g,a) = 0.024, 0.016, 0.000 ms",
			totals(map[sample.Field]float64{sample.Accepted: 0, sample.Drafted: 0})},
		{"llama.cpp statistics: mean and per position", "0.06.896.057 I statistics     draft-eagle3: #calls(b,g,a) =    1     87     87, #gen drafts =     87, #acc drafts =    70, #gen tokens =    259, #acc tokens =   167, #mean acc len = 2.92, #acc rate/pos = (0.805, 0.632, 0.483), dur(b,g,a) = 0.005, 325.555, 0.114 ms",
			totals(map[sample.Field]float64{sample.Accepted: 167, sample.Drafted: 259}, 0.805, 0.632, 0.483)},
		{"llama.cpp statistics: trace prefix", "0.34.089.513 I spec common_specu: statistics        draft-mtp: #calls(b,g,a) =    1    200    200, #gen drafts =    200, #acc drafts =   170, #gen tokens =    399, #acc tokens =   311, #mean acc len = 2.55, #acc rate/pos = (0.850, 0.705)",
			totals(map[sample.Field]float64{sample.Accepted: 311, sample.Drafted: 399}, 0.85, 0.705)},
		// 0.7.0, a drafter that accepts nothing: an empty list.
		{"llama.cpp statistics: empty per-position list", "0.06.074.552 I spec common_specu: statistics     draft-simple: #calls(b,g,a) =    1    126    126, #gen drafts =    126, #acc drafts =     0, #gen tokens =    980, #acc tokens =     0, #mean acc len = 1.00, #acc rate/pos = (), dur(b,g,a) = 0.024, 99.859, 0.011 ms",
			totals(map[sample.Field]float64{sample.Accepted: 0, sample.Drafted: 980})},

		// Read by key: after the lead (#calls starts the record, as "Decode batch" does SGLang's),
		// another order and fields unknown today change nothing.
		{"llama.cpp statistics: order and extra fields", "statistics     draft-eagle3: #calls(b,g,a) =    1     87     87, #acc tokens =   167, #gen tokens =    259, #acc rate/pos = (0.805, 0.632, 0.483), #rej tokens =    92, #mean acc len = 2.92",
			totals(map[sample.Field]float64{sample.Accepted: 167, sample.Drafted: 259}, 0.805, 0.632, 0.483)},
		{"llama.cpp slot: extra field", slot + "draft acceptance = 0.64479 (  167 accepted /   259 generated), acceptance rate per position = (0.805, 0.632, 0.483), draft time = 12.5 ms, mean acceptance length =  2.92",
			llama(map[sample.Field]float64{sample.AcceptRate: 0.64479, sample.Accepted: 167, sample.Drafted: 259}, 0.805, 0.632, 0.483)},
		{"sglang DFlash accept, order", sgl + "[DFLASH accept] out_tokens(mean=2.750) block=16 bs=4 accept_len(mean=1.750 p50=1.5 p90=3.0) extra=1",
			want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0", f: map[sample.Field]float64{sample.Running: 4, sample.BlockSize: 16, sample.AcceptedDrafts: 1.75, sample.Commit: 2.75}}},

		// SGLang DFlash / DDTree, the first verify step (lists are accepted drafts per request,
		// without the bonus token; commit_lens include it).
		{"sglang DDTree first verify", sgl + "DDTREE verify completed. num_correct_drafts_per_req=[3, 2, 5]",
			verify(map[sample.Field]float64{sample.Running: 3, sample.Accepted: 10, sample.Commit: 1 + 10.0/3})},
		{"sglang DFlash first verify", sgl + "DFLASH verify completed. num_correct_drafts_per_req=[3, 2, 5]",
			verify(map[sample.Field]float64{sample.Running: 3, sample.Accepted: 10, sample.Commit: 1 + 10.0/3})},
		{"sglang DFlash first verify, accept_length_per_req", sgl + "DFLASH verify completed. accept_length_per_req=[2, 4]",
			verify(map[sample.Field]float64{sample.Running: 2, sample.Accepted: 6, sample.Commit: 4})},
		{"sglang DFlash first verify, mode and top-k", sgl + "DFLASH verify completed. verify_mode=target_only draft_topk=1 accept_length_per_req=[1, 3, 0, 4]",
			verify(map[sample.Field]float64{sample.Running: 4, sample.Accepted: 8, sample.Commit: 3})},
		{"sglang DFlash-DDTree first verify, commit_lens", sgl + "DFLASH_DDTREE verify completed. commit_lens=[4, 3, 6]",
			verify(map[sample.Field]float64{sample.Running: 3, sample.Accepted: 10, sample.Commit: 13.0 / 3})},
		// accept_len excludes the bonus token, out_tokens includes it.
		{"sglang DFlash accept", sgl + "[DFLASH accept] bs=4 block=16 accept_len(mean=1.750 p50=1.5 p90=3.0) out_tokens(mean=2.750)",
			want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0", f: map[sample.Field]float64{sample.Running: 4, sample.BlockSize: 16, sample.AcceptedDrafts: 1.75, sample.Commit: 2.75}}},
		{"sglang DFlash profile, seconds", sgl + "[DFLASH profile] bs=4 block=16 kv_commit=0.002s draft=0.011s verify=0.085s total=0.101s",
			want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0", f: map[sample.Field]float64{sample.Running: 4, sample.BlockSize: 16, sample.StepSeconds: 0.101}}},
		{"sglang DFlash profile, milliseconds", sgl + "[DFLASH profile] bs=1 mode=decode can_run_cuda_graph=True prepare_ms=0.41 target_verify_ms=96.20 verify_cpu_ms=0.80 verify_wall_ms=97.30 append_ms=0.30 total_ms=101.30 verify_cuda_ms=96.1 step_cuda_ms=99.8 accept_sum=46 accept_mean=2.88",
			want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineSGLang, rank: "TP0", f: map[sample.Field]float64{sample.Running: 1, sample.Graph: 1, sample.StepSeconds: 0.1013, sample.Commit: 2.88}}},

		// vLLM v0: emitted / (draft tokens / k) per verify step.
		{"vllm v0: tokens tokens, both", "INFO 10-16 19:05:47 metrics.py:367] Speculative metrics: Draft acceptance rate: 0.642, System efficiency: 0.598, Number of speculative tokens: 3, Number of accepted tokens: 8547, Number of draft tokens tokens: 13311, Number of emitted tokens tokens: 10616.",
			spec(map[sample.Field]float64{sample.AcceptRate: 0.642, sample.SpecTokens: 3, sample.Accepted: 8547, sample.Drafted: 13311, sample.Emitted: 10616, sample.Commit: 10616 * 3.0 / 13311})},
		{"vllm v0: tokens tokens, draft only", "Speculative metrics: Draft acceptance rate: 0.571, System efficiency: 0.457, Number of speculative tokens: 4, Number of accepted tokens: 4552, Number of draft tokens tokens: 7972, Number of emitted tokens: 6545.",
			spec(map[sample.Field]float64{sample.AcceptRate: 0.571, sample.SpecTokens: 4, sample.Accepted: 4552, sample.Drafted: 7972, sample.Emitted: 6545, sample.Commit: 6545 * 4.0 / 7972})},
		{"vllm v0", "INFO 10-16 19:05:47 metrics.py:367] Speculative metrics: Draft acceptance rate: 0.642, System efficiency: 0.598, Number of speculative tokens: 3, Number of accepted tokens: 8547, Number of draft tokens: 13311, Number of emitted tokens: 10616.",
			spec(map[sample.Field]float64{sample.AcceptRate: 0.642, sample.SpecTokens: 3, sample.Accepted: 8547, sample.Drafted: 13311, sample.Emitted: 10616, sample.Commit: 10616 * 3.0 / 13311})},
		// v1's spec_decode/metrics.py of March 2025: v0's counters without System efficiency,
		// then with it printed as nan.
		{"vllm v1 Speculative metrics without system efficiency", "INFO 03-20 10:00:01 [metrics.py:77] Speculative metrics: Draft acceptance rate: 0.642, Number of speculative tokens: 3, Number of accepted tokens: 8547, Number of draft tokens: 13311, Number of emitted tokens: 10616.",
			spec(map[sample.Field]float64{sample.AcceptRate: 0.642, sample.SpecTokens: 3, sample.Accepted: 8547, sample.Drafted: 13311, sample.Emitted: 10616, sample.Commit: 10616 * 3.0 / 13311})},
		{"vllm v1 Speculative metrics, system efficiency nan", "INFO 03-20 10:00:01 [metrics.py:83] Speculative metrics: Draft acceptance rate: 0.642, System efficiency: nan, Number of speculative tokens: 3, Number of accepted tokens: 8547, Number of draft tokens: 13311, Number of emitted tokens: 10616.",
			spec(map[sample.Field]float64{sample.AcceptRate: 0.642, sample.SpecTokens: 3, sample.Accepted: 8547, sample.Drafted: 13311, sample.Emitted: 10616, sample.Commit: 10616 * 3.0 / 13311})},
		// v0.8.2: no emitted count and no k, so no commit length can be derived.
		{"vllm v1 0.8.2 Speculative metrics", "INFO 03-28 10:00:01 [loggers.py:80] Speculative metrics: Draft acceptance rate: 1.000, Number of accepted tokens: 66, Number of draft tokens: 66, ",
			spec(map[sample.Field]float64{sample.AcceptRate: 1, sample.Accepted: 66, sample.Drafted: 66})},
		{"vllm v1 0.8.3 SpecDecoding", vllmPrefix + "SpecDecoding metrics: Draft acceptance rate: 62.5%, Accepted: 150 tokens, Drafted: 240 tokens",
			spec(map[sample.Field]float64{sample.AcceptRate: 0.625, sample.Accepted: 150, sample.Drafted: 240})},
		// v0.8.5 printed accepted / drafts: 1880 / (3000 / 3) = 1.88, the sum of the
		// per-position rates; the commit length is 2.88.
		{"vllm v1 0.8.5 mean without bonus", vllmPrefix + "SpecDecoding metrics: Draft acceptance rate: 62.7%, Mean acceptance length: 1.88, Accepted: 1880 tokens, Drafted: 3000 tokens, Per-position acceptance rate: 0.750, 0.625, 0.505",
			spec(map[sample.Field]float64{sample.AcceptRate: 0.627, sample.Accepted: 1880, sample.Drafted: 3000, sample.Commit: 2.88}, 0.75, 0.625, 0.505)},
		// 90 / (400 / 2) = 0.45 without the bonus token: below 1, still a v0.8.5 line.
		{"vllm v1 0.8.5 mean without bonus, below one", vllmPrefix + "SpecDecoding metrics: Draft acceptance rate: 22.5%, Mean acceptance length: 0.45, Accepted: 90 tokens, Drafted: 400 tokens, Per-position acceptance rate: 0.300, 0.150",
			spec(map[sample.Field]float64{sample.AcceptRate: 0.225, sample.Accepted: 90, sample.Drafted: 400, sample.Commit: 1.45}, 0.3, 0.15)},
		// v0.9: 1 + 150 / (240 / 3) = 2.875, printed 2.88.
		{"vllm v1 0.9 mean with bonus", vllmPrefix + "SpecDecoding metrics: Draft acceptance rate: 62.5%, Mean acceptance length: 2.88, Accepted: 150 tokens, Drafted: 240 tokens, Per-position acceptance rate: 0.750, 0.625, 0.500",
			spec(map[sample.Field]float64{sample.AcceptRate: 0.625, sample.Accepted: 150, sample.Drafted: 240, sample.Commit: 2.88}, 0.75, 0.625, 0.5)},
		{"vllm v1 0.10 throughput fields", vllmPrefix + "SpecDecoding metrics: Mean acceptance length: 2.37, Accepted throughput: 41.10 tokens/s, Drafted throughput: 90.00 tokens/s, Accepted: 411 tokens, Drafted: 900 tokens, Per-position acceptance rate: 0.701, 0.452, 0.217, Avg Draft acceptance rate: 45.7%",
			spec(map[sample.Field]float64{sample.Commit: 2.37, sample.AcceptedTPS: 41.1, sample.DraftedTPS: 90, sample.Accepted: 411, sample.Drafted: 900, sample.AcceptRate: 0.457}, 0.701, 0.452, 0.217)},

		// vLLM engine lines.
		{"vllm v1 0.7.0 engine line", "INFO 01-27 10:00:01 loggers.py:72] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 35.2 tokens/s, Running: 1 reqs, Waiting: 0 reqs ",
			want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineVLLM, f: map[sample.Field]float64{sample.PromptTPS: 0, sample.GenTPS: 35.2, sample.Running: 1, sample.Queue: 0}}},
		{"vllm fork engine line", vllmPrefix + "Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 26.8 tokens/s, Running: 4 reqs, Waiting: 0 reqs, GPU KV cache usage: 2.1%, Prefix cache hit rate: 0.0%, Max iteration time: 386.7 ms, Avg time/tok:149.4 ms",
			want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineVLLM, rank: "Engine 000", f: map[sample.Field]float64{sample.PromptTPS: 0, sample.GenTPS: 26.8, sample.Running: 4, sample.Queue: 0, sample.KVUsage: 0.021}}},

		// TensorRT-LLM's iteration line (trtllm_test.go has its variants): no commit length, its
		// acceptance is on /metrics; the drafts per generation request are 16 / 4 − 1 = 3.
		{"trtllm iteration", trtPrefix + trtCurrent, trtWant(sample.KindDecode, "", trtDecode)},
		{"trtllm iteration, elapsed_time", trtPrefix + trtElapsed, trtWant(sample.KindPrefill, "", map[sample.Field]float64{sample.Running: 3,
			sample.StepSeconds: 0.02506399154663086, sample.NewSeqs: 1, sample.NewTokens: 812, sample.Drafted: 0, sample.SpecSteps: 0})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(t, c.line, c.w) })
	}
}

// totals is llama.cpp's cumulative statistics line.
func totals(f map[sample.Field]float64, pos ...float64) want {
	return want{r: sample.Matched, kind: sample.KindSpec, engine: sample.EngineLlamaCpp, event: sample.EventTotals, f: f, pos: pos}
}

// verify is SGLang's one-off summary of the first verify step.
func verify(f map[sample.Field]float64) want {
	return want{r: sample.Matched, kind: sample.KindEvent, engine: sample.EngineSGLang, event: sample.EventVerifyDone, rank: "TP0", f: f}
}

// TestEngineFormatsDamaged: the variants' markers with a value that cannot be read right are
// malformed, never a number.
func TestEngineFormatsDamaged(t *testing.T) {
	for _, line := range []string{
		"draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  0.92, acceptance rate per position = (0.805, 0.632, 0.483)",
		"draft acceptance = 0.64479 (  167 accepted /   259 generated), mean len = x",
		"draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.92, acceptance rate per position = (0.805, 0.632",
		"draft acceptance = 1.64479 (  167 accepted /   259 generated), mean len =  2.92",
		"statistics     draft-eagle3: #calls(b,g,a) =    1     87     87, #gen drafts =     87, #acc drafts =    70, #gen tokens =    259, #acc tokens =   167, #mean acc len = 2.92, #mean acc len = 2.92",
		"statistics     draft-eagle3: #calls(b,g,a) =    1     87     87, #gen drafts =     87, #acc drafts =    70, #gen tokens =    259",
		"statistics     draft-eagle3: #calls(b,g,a) =    1     87, #gen drafts =     87, #acc drafts =    70, #gen tokens =    259, #acc tokens =   167",
		"[2026-11-20 09:00:01 TP0] DDTREE verify completed. num_correct_drafts_per_req=[3, 2,",
		"[2026-11-20 09:00:01 TP0] DDTREE verify completed. num_correct_drafts_per_req=[]",
		"[2026-11-20 09:00:01 TP0] DFLASH_DDTREE verify completed. commit_lens=[0, 3]",
		"[2026-11-20 09:00:01 TP0] [DFLASH accept] bs=4 block=16 accept_len(mean=1.750 p50=1.5 p90=3.0)",
		"[2026-11-20 09:00:01 TP0] [DFLASH accept] bs=4 block=16 accept_len(mean=1.750 p50=1.5 p90=3.0) out_tokens(mean=0.750)",
		"[2026-11-20 09:00:01 TP0] [DFLASH profile] bs=4 block=16 kv_commit=0.002s draft=0.011s verify=0.085s total=xs",
		"SpecDecoding metrics: Draft acceptance rate: 62.7%, Mean acceptance length: 0.45, Accepted: 1880 tokens, Drafted: 3000 tokens",
		"Speculative metrics: Draft acceptance rate: 1.000, Number of accepted tokens: 66, ",
		"Speculative metrics: Draft acceptance rate: %.3f, Number of speculative tokens: %d, Number of accepted tokens: %d, Number of draft tokens: %d, Number of emitted tokens: %d.",
		"Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 26.8 tokens/s, Running: 4 reqs, Waiting: 0 reqs, GPU KV cache usage: 2.1%, Avg time/tok:x",
		"Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 26.8 tokens/s, Waiting: 0 reqs",
		// Every line with an engine lead has the KV figure: without it, the line was cut.
		"Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 26.8 tokens/s, Running: 4 reqs, Waiting: 0 reqs",
		// TensorRT-LLM's states dict is the line's end: without it the line was cut.
		trtPrefix + "iter = 1204, global_rank = 0, rank = 0, num_scheduled_requests = 4, kv_cache_util = 0.031, currank_total_requests = 9/9, host_step_time = 25.06399154663086ms",
	} {
		check(t, line, want{r: sample.Malformed})
	}
}

// TestLlamaSummary: examples/speculative's closing summary, one figure per line; Stream joins
// n_predict and n_accept into the run's commit length: 921 tokens in 921 − 600 = 321 verify
// steps, 921 / 321 = 2.869.
func TestLlamaSummary(t *testing.T) {
	ev := func(f sample.Field, x float64) want {
		return want{r: sample.Matched, kind: sample.KindEvent, engine: sample.EngineLlamaCpp, event: sample.EventSummary, f: map[sample.Field]float64{f: x}}
	}
	check(t, "n_draft   = 8", ev(sample.SpecTokens, 8))
	check(t, "n_predict = 921", ev(sample.Emitted, 921))
	check(t, "n_drafted = 1020", ev(sample.Drafted, 1020))
	check(t, "0.12.345.678 I n_accept  = 600", ev(sample.Accepted, 600))
	check(t, "accept    = 58.824%", ev(sample.AcceptRate, 0.58824))
	for _, line := range []string{"n_accept  = 6x0", "accept    = 158.824%", "n_predict = -1"} {
		check(t, line, want{r: sample.Malformed})
	}
	for _, line := range []string{"xn_accept  = 600", "n_accept = 600", "total = 5"} {
		check(t, line, want{r: sample.Ignored})
	}

	st := NewStream(StreamOptions{Year: 2026})
	var got Record
	for _, line := range []string{"n_draft   = 8", "n_predict = 921", "n_drafted = 1020", "n_accept  = 600", "accept    = 58.824%"} {
		s := resolve(t, st, 1, "gpu07", "spec.service", line)
		if s.Has(sample.Accepted) {
			got = s
		}
	}
	c, ok := got.Get(sample.Commit)
	if got.Kind != sample.KindSpec || !ok || c != 921.0/321 || got.Value(sample.Drafted) != 1020 || got.Value(sample.Accepted) != 600 {
		t.Fatalf("joined n_accept: kind %v commit %v (%v) drafted %v accepted %v, want spec 2.869 1020 600",
			got.Kind, c, ok, got.Value(sample.Drafted), got.Value(sample.Accepted))
	}
	// n_accept of another unit gets no commit length, nor one after the run's was joined.
	resolve(t, st, 2, "gpu07", "spec.service", "n_predict = 921")
	if s := resolve(t, st, 3, "gpu07", "other.service", "n_accept  = 600"); s.Has(sample.Commit) || s.Kind != sample.KindEvent {
		t.Errorf("n_accept joined to another unit's n_predict: %v %v", s.Kind, s.Value(sample.Commit))
	}
	if s := resolve(t, st, 4, "gpu07", "spec.service", "n_accept  = 600"); !s.Has(sample.Commit) {
		t.Errorf("n_accept after another unit's line lost its own n_predict")
	}
	if s := resolve(t, st, 5, "gpu07", "spec.service", "n_accept  = 600"); s.Has(sample.Commit) {
		t.Errorf("a second n_accept reused the run's n_predict: %v", s.Value(sample.Commit))
	}
}

// TestEngineFormatsNoAllocs: the new readers keep the hot path free of allocation, and so does
// Stream's join of the summary lines once its key buffer has grown.
func TestEngineFormatsNoAllocs(t *testing.T) {
	if raceEnabled() {
		t.Skip("the race detector allocates")
	}
	p := NewParser(Options{})
	var s Record
	for _, line := range []string{
		"0.06.896.015 I slot print_timing: id  1 | task 0 | draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.92, acceptance rate per position = (0.805, 0.632, 0.483)",
		"0.06.896.057 I statistics     draft-eagle3: #calls(b,g,a) =    1     87     87, #gen drafts =     87, #acc drafts =    70, #gen tokens =    259, #acc tokens =   167, #mean acc len = 2.92, #acc rate/pos = (0.805, 0.632, 0.483), dur(b,g,a) = 0.005, 325.555, 0.114 ms",
		"[2026-11-20 09:00:01 TP0] DDTREE verify completed. num_correct_drafts_per_req=[3, 2, 5]",
		"[2026-11-20 09:00:02 TP0] [DFLASH accept] bs=4 block=16 accept_len(mean=1.750 p50=1.5 p90=3.0) out_tokens(mean=2.750)",
		"[2026-11-20 09:00:02 TP0] [DFLASH profile] bs=4 block=16 kv_commit=0.002s draft=0.011s verify=0.085s total=0.101s",
		"(APIServer pid=9120) INFO 05-02 10:00:01 [loggers.py:116] SpecDecoding metrics: Draft acceptance rate: 62.7%, Mean acceptance length: 1.88, Accepted: 1880 tokens, Drafted: 3000 tokens, Per-position acceptance rate: 0.750, 0.625, 0.505",
		"(APIServer pid=9120) INFO 05-20 10:00:11 [loggers.py:116] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 26.8 tokens/s, Running: 4 reqs, Waiting: 0 reqs, GPU KV cache usage: 2.1%, Prefix cache hit rate: 0.0%, Max iteration time: 386.7 ms, Avg time/tok:149.4 ms",
		"INFO 03-28 10:00:01 [loggers.py:80] Speculative metrics: Draft acceptance rate: 1.000, Number of accepted tokens: 66, Number of draft tokens: 66, ",
		"n_accept  = 600",
	} {
		b := []byte(line)
		if a := testing.AllocsPerRun(100, func() { p.Parse(b, &s) }); a != 0 {
			t.Errorf("%q: %.1f allocations per line", line, a)
		}
	}
	st := NewStream(StreamOptions{Year: 2026})
	lines := [][]byte{[]byte("n_predict = 921"), []byte("n_drafted = 1020"), []byte("n_accept  = 600")}
	host, unit := []byte("gpu07"), []byte("spec.service")
	run := func() {
		for _, l := range lines {
			p.Parse(l, &s)
			st.Resolve(1, host, unit, &s)
		}
	}
	run()
	if a := testing.AllocsPerRun(100, run); a != 0 {
		t.Errorf("summary join: %.1f allocations per run", a)
	}
}

// A v0 line cut right after a comma is not v0.8.2's short line: it names k, so it is cut.
func TestSpecV0CutAfterComma(t *testing.T) {
	check(t, "Speculative metrics: Draft acceptance rate: 0.571, System efficiency: 0.457, Number of speculative tokens: 4, Number of accepted tokens: 4552, Number of draft tokens: 7972,",
		want{r: sample.Malformed})
}
