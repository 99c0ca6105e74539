package parse

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/sample"
	"github.com/specwatch/specwatch/sim"
)

func benchLine(b *testing.B, line string, want sample.Result) {
	p := NewParser(Options{})
	var s Record
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
	benchLine(b, "Nov 20 09:00:01 gpu07 python3[48211]: [2026-11-20 09:00:01 DP3 TP3] Decode batch, #running-req: 1, #token: 5553, token usage: 0.01, accept len: 2.90, accept rate: 0.13, cuda graph: True, gen throughput (token/s): 31.87, #queue-req: 0", sample.Matched)
}

// The chatty corpus' lines, each behind journalctl's short-iso prefix.
const isoPrefix = "2026-11-20T09:00:01+0000 gpu07 python3[48211]: "

func BenchmarkSGLangDecodeISO(b *testing.B) {
	benchLine(b, isoPrefix+"[2026-11-20 09:00:01 DP2 TP2] Decode batch, #running-req: 8, #token: 11679, token usage: 0.03, accept len: 3.89, accept rate: 0.41, cuda graph: True, gen throughput (token/s): 576.21, #queue-req: 0", sample.Matched)
}

func BenchmarkSGLangPrefillISO(b *testing.B) {
	benchLine(b, isoPrefix+"[2026-11-20 09:00:00 DP0 TP0] Prefill batch, #new-seq: 8, #new-token: 30479, #cached-token: 6208, token usage: 0.09, #running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 19805.06", sample.Matched)
}

func BenchmarkAccessISO(b *testing.B) {
	benchLine(b, isoPrefix+`[2026-11-20 09:00:01] INFO:     127.0.0.1:51325 - "POST /v1/chat/completions HTTP/1.1" 200 OK`, sample.Ignored)
}

func BenchmarkToolParserISO(b *testing.B) {
	benchLine(b, isoPrefix+`[2026-11-20 09:00:05] Failed to parse JSON part: {"name": "fetch_url", "arguments": {"url": "https://docs.example.com/search?q=speculative+decoding&lang=en"}}}, JSON parse error: Extra data: line 1 column 103 (char 102)`, sample.Ignored)
}

func BenchmarkTracebackISO(b *testing.B) {
	benchLine(b, isoPrefix+`  File "/usr/local/lib/python3.12/dist-packages/uvicorn/protocols/http/httptools_impl.py", line 409, in run_asgi`, sample.Ignored)
}

// Target: <= 800 ns and 0 allocations with 15 per-position values.
func BenchmarkVLLMSpec15(b *testing.B) {
	benchLine(b, "(APIServer pid=9120) INFO 11-20 09:00:01 [metrics.py:96] SpecDecoding metrics: Mean acceptance length: 3.10, Accepted throughput: 41.10 tokens/s, Drafted throughput: 90.00 tokens/s, Accepted: 2100 tokens, Drafted: 15000 tokens, Per-position acceptance rate: 0.901, 0.802, 0.703, 0.604, 0.505, 0.406, 0.307, 0.208, 0.109, 0.090, 0.080, 0.070, 0.060, 0.050, 0.040, Avg Draft acceptance rate: 14.0%", sample.Matched)
}

// Target: <= 60 ns for a 200-byte line with no marker.
func BenchmarkNoise200(b *testing.B) {
	line := `INFO:     10.0.3.17:54321 - "POST /v1/chat/completions HTTP/1.1" 200 OK  request_id: 7f3a9c2e-5b1d-4e8f-a6c3-2d9b0e1f4a57 user-agent: python-httpx/0.27.0 upstream latency 1532 ms; bytes out 48213`
	line += strings.Repeat(" ", 200-len(line))
	benchLine(b, line, sample.Ignored)
}

func BenchmarkVLLMEngine(b *testing.B) {
	benchLine(b, "(APIServer pid=9120) INFO 11-20 09:00:01 [loggers.py:271] Engine 000: Avg prompt throughput: 1204.7 tokens/s, Avg generation throughput: 96.4 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 7.3%, Prefix cache hit rate: 41.2%", sample.Matched)
}

// TensorRT-LLM's iteration line behind its logger's prefix: one per executor iteration, so
// hundreds a second per rank. Target: 0 allocations.
func BenchmarkTRTLLMIteration(b *testing.B) {
	benchLine(b, trtPrefix+trtNewest, sample.Matched)
}

func BenchmarkKeyValue(b *testing.B) {
	benchLine(b, "[2026-11-20 09:00:01 TP0] ddtree avg_commit_len=2.90, avg_accepted_depth=1.90, step_ms=101.3", sample.Matched)
}

// BenchmarkMixed parses the first 10,000 lines of bench/'s corpus (sim's mixed preset, as
// `specwatch simulate --preset mixed` writes it): 70 % noise, SGLang decode, prefill and
// avg_commit_len lines, vLLM engine and SpecDecoding lines, a key=value build and llama.cpp, all
// behind journalctl's short prefix. The single-line benchmarks each repeat one shape, which the
// branch predictor learns; this mix is what a real stream costs. It reports ns/line.
func BenchmarkMixed(b *testing.B) { benchCorpus(b, sim.Mixed(1, 10000)) }

// BenchmarkChatty parses the first 10,000 lines of bench/'s second corpus (sim's chatty preset):
// one SGLang unit behind journalctl's short-iso prefix, 30 % decode and 10 % prefill lines from
// four DP ranks, the rest the server's access log, tracebacks and tool-parser complaints.
func BenchmarkChatty(b *testing.B) { benchCorpus(b, sim.Chatty(1, 10000)) }

func benchCorpus(b *testing.B, sc sim.Scenario) {
	var buf bytes.Buffer
	if _, err := sim.Generate(sc, &buf, nil); err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
	p := NewParser(Options{})
	var s Record
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
	benchLine(b, "accept len: "+strings.Repeat("9", 1<<20-20), sample.Ignored)
}
func BenchmarkHostileHashes(b *testing.B) { benchLine(b, strings.Repeat("#", 1<<20), sample.Ignored) }
func BenchmarkHostileKeyValues(b *testing.B) {
	benchLine(b, "avg_commit_len=2.9 "+strings.Repeat("k=1 ", 10000), sample.Matched)
}

// BenchmarkResolveAbsolute resolves the time of a short-iso line, as analyze does for every
// sample of the chatty corpus.
func BenchmarkResolveAbsolute(b *testing.B) {
	p, st := NewParser(Options{}), NewStream(StreamOptions{})
	var s Record
	line := []byte(isoPrefix + "[2026-11-20 09:00:01 DP2 TP2] Decode batch, #running-req: 8, #token: 11679, gen throughput (token/s): 576.21, #queue-req: 0")
	if p.Parse(line, &s) != sample.Matched {
		b.Fatal(s.Why)
	}
	b.ReportAllocs()
	for b.Loop() {
		st.Resolve(0, nil, nil, &s)
	}
}

// BenchmarkPrefixISO reads the prefix of a chatty-corpus sample line: journalctl's short-iso
// stamp, host and identifier, then SGLang's bracket with its own stamp and rank tags. clockAt's
// and dateAt's single bounds check and hostIdent's table took it from 1,574 to 1,339
// instructions per op (cachegrind) and 0.89× the CPU time (median of 7 alternated runs).
func BenchmarkPrefixISO(b *testing.B) {
	line := []byte(isoPrefix + "[2026-11-20 09:00:01 DP2 TP2] ")
	var s Record
	prefix(line, &s)
	if string(s.Host) != "gpu07" || string(s.Rank) != "DP2 TP2" || s.Stamp.Prec != PrecAbsolute {
		b.Fatalf("prefix read %q %q %+v", s.Host, s.Rank, s.Stamp)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		s.Reset()
		prefix(line, &s)
	}
}

// BenchmarkLlamaCppCapture parses and joins the real engine's lines (llama-server 0.7.0, a
// draft model at -lv 4: start-up, two requests with their statistics): ns/line, 0 allocations.
func BenchmarkLlamaCppCapture(b *testing.B) {
	data, err := os.ReadFile("testdata/llamacpp_070_draft_lv4.log")
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	p, st := NewParser(Options{}), NewStream(StreamOptions{})
	host, unit := []byte("gpu07"), []byte("llama-server.service")
	var s Record
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for _, l := range lines {
			if p.Parse(l, &s) != sample.Ignored {
				st.Resolve(1, host, unit, &s)
			}
			for st.Take(&s) {
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
}

// BenchmarkLlamaCppEval is one request line of llama-server 0.7.0, the slot marker's path.
func BenchmarkLlamaCppEval(b *testing.B) {
	benchLine(b, "0.05.071.066 I slot print_timing: id  0 | task 0 |        eval time =     948.21 ms /   128 tokens (    7.47 ms per token,   133.94 tokens per second)", sample.Matched)
}

// BenchmarkLlamaCppLoader is llama.cpp's start-up noise with a spaced '=' ("name = value"),
// which visits the llama.cpp markers before it is found to be none of them.
func BenchmarkLlamaCppLoader(b *testing.B) {
	benchLine(b, "0.00.036.935 I llama_model_loader: - kv   1:                               general.name str              = specwatch-target", sample.Ignored)
}
