package parse

import (
	"bytes"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/sim"
)

func benchLine(b *testing.B, line string, want Result) {
	p := NewParser(Options{})
	var s Sample
	in := []byte(line)
	if r := p.Parse(in, &s); r != want {
		b.Fatalf("%q: %v (%s), want %v", line, r, s.Why, want)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.Parse(in, &s)
	}
}

// Target: <= 400 ns and 0 allocations.
func BenchmarkSGLangDecode(b *testing.B) {
	benchLine(b, "Nov 20 09:00:01 gpu07 python3[48211]: [2026-11-20 09:00:01 DP3 TP3] Decode batch, #running-req: 1, #token: 5553, token usage: 0.01, accept len: 2.90, accept rate: 0.13, cuda graph: True, gen throughput (token/s): 31.87, #queue-req: 0", Matched)
}

// Target: <= 800 ns and 0 allocations with 15 per-position values.
func BenchmarkVLLMSpec15(b *testing.B) {
	benchLine(b, "(APIServer pid=9120) INFO 11-20 09:00:01 [metrics.py:96] SpecDecoding metrics: Mean acceptance length: 3.10, Accepted throughput: 41.10 tokens/s, Drafted throughput: 90.00 tokens/s, Accepted: 2100 tokens, Drafted: 15000 tokens, Per-position acceptance rate: 0.901, 0.802, 0.703, 0.604, 0.505, 0.406, 0.307, 0.208, 0.109, 0.090, 0.080, 0.070, 0.060, 0.050, 0.040, Avg Draft acceptance rate: 14.0%", Matched)
}

// Target: <= 60 ns for a 200-byte line with no marker.
func BenchmarkNoise200(b *testing.B) {
	line := `INFO:     10.0.3.17:54321 - "POST /v1/chat/completions HTTP/1.1" 200 OK  request_id: 7f3a9c2e-5b1d-4e8f-a6c3-2d9b0e1f4a57 user-agent: python-httpx/0.27.0 upstream latency 1532 ms; bytes out 48213`
	line += strings.Repeat(" ", 200-len(line))
	benchLine(b, line, Ignored)
}

func BenchmarkVLLMEngine(b *testing.B) {
	benchLine(b, "(APIServer pid=9120) INFO 11-20 09:00:01 [loggers.py:271] Engine 000: Avg prompt throughput: 1204.7 tokens/s, Avg generation throughput: 96.4 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 7.3%, Prefix cache hit rate: 41.2%", Matched)
}

func BenchmarkKeyValue(b *testing.B) {
	benchLine(b, "[2026-11-20 09:00:01 TP0] ddtree avg_commit_len=2.90, avg_accepted_depth=1.90, step_ms=101.3", Matched)
}

// BenchmarkMixed parses the first 10,000 lines of bench/'s corpus (sim's mixed preset, as
// `specwatch simulate --preset mixed` writes it): 70 % noise, SGLang decode, prefill and
// avg_commit_len lines, vLLM engine and SpecDecoding lines, a key=value build and llama.cpp, all
// behind journalctl's short prefix. The single-line benchmarks each repeat one shape, which the
// branch predictor learns; this mix is what a real stream costs. It reports ns/line.
func BenchmarkMixed(b *testing.B) {
	var buf bytes.Buffer
	if _, err := sim.Generate(sim.Mixed(1, 10000), &buf, nil); err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
	p := NewParser(Options{})
	var s Sample
	b.ReportAllocs()
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			p.Parse(l, &s)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
}

// Hostile shapes must stay linear: compare ns/byte with the 200-byte noise line.
func BenchmarkHostileDigits(b *testing.B) {
	benchLine(b, "accept len: "+strings.Repeat("9", 1<<20-20), Ignored)
}
func BenchmarkHostileHashes(b *testing.B) { benchLine(b, strings.Repeat("#", 1<<20), Ignored) }
func BenchmarkHostileKeyValues(b *testing.B) {
	benchLine(b, "avg_commit_len=2.9 "+strings.Repeat("k=1 ", 10000), Matched)
}
