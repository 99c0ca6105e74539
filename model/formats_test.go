package model

import (
	"testing"

	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sample"
)

// feedSnapshot parses, resolves and applies lines one second apart and returns the one series.
func feedSnapshot(t *testing.T, lines ...string) SeriesSnapshot {
	t.Helper()
	m := NewSet(Options{})
	p, st := parse.NewParser(parse.Options{}), parse.NewStream(parse.StreamOptions{Year: 2026})
	var s parse.Record
	for i, line := range lines {
		r := p.Parse([]byte(line), &s)
		if r != sample.Matched {
			t.Fatalf("%q: %v (%s)", line, r, s.Why)
		}
		st.Resolve(int64(1_795_000_000_000_000+i*1_000_000), []byte("gpu07"), []byte("engine.service"), &s)
		m.Apply(r, &s.Sample)
	}
	snap := m.Snapshot(nil)
	if len(snap) != 1 {
		t.Fatalf("%d series, want 1", len(snap))
	}
	return snap[0]
}

// vLLM v0.7.0's engine line has no KV usage: the series has no context, rather than 0 %.
func TestVLLMEngineWithoutKV(t *testing.T) {
	got := feedSnapshot(t,
		"INFO 01-27 10:00:01 loggers.py:72] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 35.2 tokens/s, Running: 1 reqs, Waiting: 0 reqs ")
	if got.HasContext || !got.HasRunning || got.Running != 1 {
		t.Fatalf("context %v (has %v), running %v (has %v): want no context, 1 running", got.Context, got.HasContext, got.Running, got.HasRunning)
	}
	got = feedSnapshot(t,
		"INFO 01-27 10:00:01 loggers.py:72] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 35.2 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.4%")
	if !got.HasContext || got.Context != 0.4 {
		t.Fatalf("context %v (has %v): want 0.4 %%", got.Context, got.HasContext)
	}
}

// SGLang-JAX's DFlash pair: the acceptance line gives the commit length, the profile line in
// seconds the step.
func TestDFlashJAXLines(t *testing.T) {
	got := feedSnapshot(t,
		"[2026-11-20 09:00:02 TP0] [DFLASH accept] bs=4 block=16 accept_len(mean=1.750 p50=1.5 p90=3.0) out_tokens(mean=2.750)",
		"[2026-11-20 09:00:02 TP0] [DFLASH profile] bs=4 block=16 kv_commit=0.002s draft=0.011s verify=0.085s total=0.101s")
	if !got.HasCommit || got.Commit != 2.75 || !got.HasStep || got.Step != 0.101 {
		t.Fatalf("commit %v (has %v), step %v (has %v): want 2.75 and 0.101 s", got.Commit, got.HasCommit, got.Step, got.HasStep)
	}
}
