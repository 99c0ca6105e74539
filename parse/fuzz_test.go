package parse

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/specwatch/specwatch/sample"
)

// seedLines adds every line of the test corpus files as fuzz seeds.
func seedLines(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.log")
	for _, p := range paths {
		fh, err := os.Open(p)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
		for sc.Scan() {
			f.Add(append([]byte(nil), sc.Bytes()...))
		}
		fh.Close()
	}
	for _, l := range []string{
		"Decode batch, #running-req: 1, #token: 5553, token usage: 0.01, accept len: 2.90, accept rate: 0.13, cuda graph: True, gen throughput (token/s): 31.87, #queue-req: 0",
		"SpecDecoding metrics: Draft acceptance rate: 62.5%, Mean acceptance length: 2.88, Accepted: 150 tokens, Drafted: 240 tokens, Per-position acceptance rate: 0.750, 0.625, 0.500",
		"draft acceptance rate = 0.58824 (  600 accepted /  1020 generated)",
		"avg_commit_len=2.90, avg_accepted_depth=1.90, step_ms=101.3",
		"[11/20/2026-09:00:01] [TRT-LLM] [RANK 1] [I] iter = 1204, global_rank = 1, rank = 1, num_scheduled_requests = 4, kv_cache_util = 0.031, currank_total_requests = 9/9, host_step_time = 25.06399154663086ms, prev_device_step_time = N/A, timestamp = 2026-11-20 09:00:01, states = {'num_ctx_requests': 1, 'num_ctx_tokens': 812, 'num_generation_tokens': 16}",
		"\x1b[1;36m(APIServer pid=9120)\x1b[0;0m INFO 11-20 09:00:01 [loggers.py:271] Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 96.4 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 7.3%",
	} {
		f.Add([]byte(l))
	}
}

// FuzzParse: never panics, is deterministic, and whatever it accepts is a sane figure.
func FuzzParse(f *testing.F) {
	seedLines(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		p := NewParser(Options{})
		var s1, s2 Record
		r1 := p.Parse(line, &s1)
		r2 := p.Parse(line, &s2)
		if r1 != r2 || s1.Fields() != s2.Fields() {
			t.Fatalf("not deterministic: %v/%v", r1, r2)
		}
		if (r1 == sample.Malformed) != (s1.Why != "") {
			t.Fatalf("result %v with reason %q", r1, s1.Why)
		}
		if r1 != sample.Matched {
			return
		}
		for f := sample.Field(0); f < numFields; f++ {
			v, ok := s1.Get(f)
			if ok && (math.IsNaN(v) || math.IsInf(v, 0) || v < 0) {
				t.Fatalf("field %v = %v", f, v)
			}
		}
		if c, ok := s1.Get(sample.Commit); ok && (c < 1 || c > 64) {
			t.Fatalf("commit %v", c)
		}
		if s1.NPos > sample.MaxPerPosition {
			t.Fatalf("per-position %d", s1.NPos)
		}
		NewStream(StreamOptions{Year: 2026}).Resolve(0, nil, nil, &s1)
	})
}
