package parse

import (
	"bytes"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/sample"
)

// Every damaged record must come out Malformed (counted, drives format_drift), never as a
// plausible number.
func TestDamagedRecordsAreMalformed(t *testing.T) {
	good := "[2026-11-20 09:00:01 TP0] Decode batch, #running-req: 1, #token: 5553, token usage: 0.01, accept len: 2.90, accept rate: 0.13, cuda graph: True, gen throughput (token/s): 31.87, #queue-req: 0"
	bad := func(line string) {
		t.Helper()
		var s Record
		if r := NewParser(Options{}).Parse([]byte(line), &s); r != sample.Malformed {
			t.Errorf("%q: %v, want malformed", line, r)
		}
	}
	for _, v := range []string{"nan", "NaN", "inf", "+Inf", "-3", "1e309", "0x10", "", "2.", ".5", "2,90", "2.90x", "1e3", "99999999999999999999", "0.5"} {
		bad(strings.Replace(good, "accept len: 2.90", "accept len: "+v, 1))
	}
	for _, v := range []string{"-1", "1.5", "12abc", "", "1 2"} {
		bad(strings.Replace(good, "#running-req: 1", "#running-req: "+v, 1))
	}
	bad(strings.Replace(good, "token usage: 0.01", "token usage: 1.01", 1))
	bad(strings.Replace(good, "cuda graph: True", "cuda graph: Maybe", 1))
	bad(good + ", #running-req: 2")              // duplicated key
	bad(good[:130])                              // split at 130 columns
	bad(good[:len(good)-len(", #queue-req: 0")]) // cut right before the last field
	bad(strings.TrimSuffix(good, " 0"))          // "#queue-req:" with the value lost
	bad(good + good)                             // two records glued
	bad(good + "\x00" + good)
	bad("Decode batch #running-req: 1")
	bad("SpecDecoding metrics: Draft acceptance rate: 62.5%, Accepted: 150 tokens")
	bad("SpecDecoding metrics: Draft acceptance rate: 162.5%, Accepted: 150 tokens, Drafted: 240 tokens")
	bad("SpecDecoding metrics: Accepted: 150 tokens, Drafted: 240 tokens, Per-position acceptance rate: 0.7, 0.6, 1.7")
	bad("SpecDecoding metrics: Accepted: 150 tokens, Drafted: 240 tokens, Per-position acceptance rate: " + strings.Repeat("0.5, ", 40) + "0.5")
	bad("SpecDecoding metrics: Accepted: 150 tokens, Drafted: 240 apples")
	bad("Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: nan tokens/s, Running: 1 reqs, GPU KV cache usage: 1%")
	bad("draft acceptance rate = 0.58824 (  600 accepted /  ")
	bad("draft acceptance rate = inf (  600 accepted /  1020 generated)")
	bad("avg_commit_len=nan avg_accepted_depth=1.9")
	bad("avg_commit_len=2.9 avg_commit_len=3.0")
	bad("avg_commit_len=2.9 step_ms=-3")
	bad("avg_commit_len=0.3")
	bad("#retracted_reqs: many")
}

func TestNoiseIsIgnored(t *testing.T) {
	for _, line := range []string{
		"",
		"[123B blob data]",
		"INFO:     127.0.0.1:54321 - \"POST /generate HTTP/1.1\" 200 OK",
		"Traceback (most recent call last):",
		"  File \"/usr/lib/python3/dist-packages/sglang/srt/managers/scheduler.py\", line 123, in event_loop",
		"NCCL INFO comm 0x5581 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0",
		"\xff\xfe\x00\x01 invalid utf-8 \xc3\x28",
		strings.Repeat("#", 1<<20),
		strings.Repeat("9", 1<<20),
		strings.Repeat("a=b ", 1<<16),
	} {
		var s Record
		if r := NewParser(Options{}).Parse([]byte(line), &s); r != sample.Ignored {
			t.Errorf("%.60q: %v (%s), want ignored", line, r, s.Why)
		}
	}
}

// A line the parser only reads part of must not cost more than reading it: the 1 MiB cap holds.
func TestHugeLineIsBounded(t *testing.T) {
	line := append([]byte("Decode batch, #running-req: 1, "), bytes.Repeat([]byte("x: 1, "), 1<<19)...)
	var s Record
	if r := NewParser(Options{}).Parse(line, &s); r != sample.Malformed {
		t.Fatalf("got %v, want malformed (the required tail is past the cap)", r)
	}
}

func TestAliasesFromOptions(t *testing.T) {
	p := NewParser(Options{Aliases: map[string]Alias{"acc_len": {Field: sample.Commit, Scale: 1}, "iter_ms": {Field: sample.StepSeconds, Scale: 0.001}}})
	var s Record
	if r := p.Parse([]byte("stats: acc_len=3.25 iter_ms=88.0 bs=4"), &s); r != sample.Matched {
		t.Fatalf("got %v (%s)", r, s.Why)
	}
	if c, _ := s.Get(sample.Commit); c != 3.25 {
		t.Errorf("commit %v", c)
	}
	if st, _ := s.Get(sample.StepSeconds); st != 0.088 {
		t.Errorf("step %v", st)
	}
	if r, _ := s.Get(sample.Running); r != 4 {
		t.Errorf("running %v", r)
	}
}

func TestRules(t *testing.T) {
	r, err := NewRule("mybuild", `spec stats: acc=(?P<commit_len>[0-9.]+) t=(?P<step_seconds>[0-9.]+)ms`, "", sample.KindDecode,
		map[string]float64{"step_seconds": 0.001})
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser(Options{Rules: []Rule{r}})
	var s Record
	if got := p.Parse([]byte("[2026-11-20 09:00:01 TP3] spec stats: acc=3.25 t=88.0ms"), &s); got != sample.Matched {
		t.Fatalf("%v %s", got, s.Why)
	}
	if c, _ := s.Get(sample.Commit); c != 3.25 || s.Value(sample.StepSeconds) != 0.088 || string(s.Rank) != "TP3" || s.Engine != sample.EngineSGLang {
		t.Errorf("sample %+v", s)
	}
	if got := p.Parse([]byte("spec stats: acc=nan t=88.0ms"), &s); got != sample.Ignored {
		t.Errorf("non-matching value: %v", got) // the regexp itself refuses "nan"
	}
	if got := p.Parse([]byte("spec stats: acc=0.5 t=88.0ms"), &s); got != sample.Malformed {
		t.Errorf("commit below 1: %v", got)
	}
	if got := p.Parse([]byte("unrelated noise"), &s); got != sample.Ignored {
		t.Errorf("noise: %v", got)
	}
	for _, bad := range []string{`(`, `no groups`, `(?P<nonsense>\d+)`} {
		if _, err := NewRule("x", bad, "", sample.KindDecode, nil); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
