package enginelog_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sim/enginelog"
)

var at = time.Date(2026, 11, 20, 9, 0, 1, 0, time.UTC)

// ExampleWriter_AppendLine writes an SGLang decode line and a vLLM speculative line from their
// values; the writer computes only what the engine derives from them (usage, rates).
func ExampleWriter_AppendLine() {
	sg := enginelog.Writer{Engine: enginelog.SGLang, Style: enginelog.SGLangCurrent, Rank: "DP0 TP0",
		KVTokens: 500000, DraftLen: 7}
	rec := enginelog.Record{Kind: enginelog.LineDecode, Ctx: 120000, Running: 8, Queue: 2,
		Commit: 4.25, TPS: 812.5}
	fmt.Println(string(sg.AppendLine(nil, at, &rec)))

	vl := enginelog.Writer{Engine: enginelog.VLLM, Style: enginelog.VLLMSpecGen2, Rank: "Engine 000",
		PID: 9120, KVTokens: 500000, DraftLen: 4}
	rec = enginelog.Record{Kind: enginelog.LineSpec, Commit: 2.5, Drafts: 200, Accepted: 300,
		Drafted: 800, Pos: [enginelog.MaxPositions]int32{120, 90, 60, 30}, Interval: 10}
	fmt.Println(string(vl.AppendLine(nil, at, &rec)))
	// Output:
	// [2026-11-20 09:00:01 DP0 TP0] Decode batch, #running-req: 8, #token: 120000, token usage: 0.24, accept len: 4.25, accept rate: 0.46, cuda graph: True, gen throughput (token/s): 812.50, #queue-req: 2
	// (APIServer pid=9120) INFO 11-20 09:00:01 [metrics.py:96] SpecDecoding metrics: Draft acceptance rate: 37.5%, Mean acceptance length: 2.50, Accepted: 300 tokens, Drafted: 800 tokens, Per-position acceptance rate: 0.600, 0.450, 0.300, 0.150
}

// TestAppendLineAllocs: a line written into a buffer with room costs no allocation, whatever
// the engine, which is what lets the simulator write millions of lines a second.
func TestAppendLineAllocs(t *testing.T) {
	writers := []enginelog.Writer{
		{Engine: enginelog.SGLang, Style: enginelog.SGLangHybridSWA, Prefix: enginelog.PrefixPython,
			KVTokens: 500000, DraftLen: 7},
		{Engine: enginelog.VLLM, Style: enginelog.VLLMSpecGen3, Color: true, Rank: "Engine 001",
			PID: 9121, KVTokens: 500000, DraftLen: 4},
		{Engine: enginelog.LlamaCpp, DraftLen: 15},
		{Engine: enginelog.Generic, Style: enginelog.GenericSpace, KVTokens: 500000, DraftLen: 15,
			DecodeInterval: 40},
		{Engine: enginelog.TRTLLM, Style: enginelog.TRTLLMCurrent, Rank: "3", World: 4, KVTokens: 500000, DraftLen: 3},
	}
	kinds := map[enginelog.Engine]enginelog.LineKind{enginelog.SGLang: enginelog.LineDecode,
		enginelog.VLLM: enginelog.LineSpec, enginelog.LlamaCpp: enginelog.LineDraft,
		enginelog.Generic: enginelog.LineCustom, enginelog.TRTLLM: enginelog.LineIteration}
	buf := make([]byte, 0, 4096)
	for _, w := range writers {
		rec := enginelog.Record{Kind: kinds[w.Engine], Sub: 5, Ctx: 90000, Running: 4, Commit: 3.1,
			Step: 0.05, TPS: 240, Drafts: 100, Accepted: 210, Drafted: 400, Interval: 10}
		if n := testing.AllocsPerRun(100, func() { buf = w.AppendLine(buf[:0], at, &rec) }); n != 0 {
			t.Errorf("%s: %v allocations per line", w.Engine, n)
		}
		if len(buf) == 0 {
			t.Errorf("%s: empty line", w.Engine)
		}
	}
}
