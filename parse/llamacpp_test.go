package parse

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/sample"
)

// TestLlamaCppLines: every line of a request, as llama-server 0.7.0 prints it (Debian
// 1:0.7.0+dfsg-2), and the older shapes: matched, the prompt's a prefill sample, the others
// parts of the request's join that the model skips, none with a commit length.
func TestLlamaCppLines(t *testing.T) {
	const p = "0.05.071.041 I slot print_timing: id  0 | task 0 | "
	part := func(k sample.Kind, f map[sample.Field]float64, pos ...float64) want {
		return want{r: sample.Matched, kind: k, engine: sample.EngineLlamaCpp, event: sample.EventPart, f: f, pos: pos}
	}
	for _, c := range []struct {
		line string
		w    want
	}{
		{p + "prompt eval time =     109.15 ms /    21 tokens (    5.20 ms per token,   192.39 tokens per second)",
			want{r: sample.Matched, kind: sample.KindPrefill, engine: sample.EngineLlamaCpp, f: map[sample.Field]float64{sample.NewTokens: 21, sample.PromptTPS: 192.39}}},
		{p + "       eval time =     948.21 ms /   128 tokens (    7.47 ms per token,   133.94 tokens per second)",
			part(sample.KindDecode, map[sample.Field]float64{sample.GenTPS: 133.94})},
		{p + "      total time =    1057.37 ms /   149 tokens", part(sample.KindDecode, nil)},
		{p + "   graphs reused =         45", part(sample.KindDecode, nil)},
		{p + "  graph reallocs =          0    /     0        (same size) / (changed size)", part(sample.KindDecode, nil)},
		{p + "draft acceptance = 0.21180 (   79 accepted /   373 generated), mean len =  2.65",
			part(sample.KindSpec, map[sample.Field]float64{sample.AcceptRate: 0.2118, sample.Accepted: 79, sample.Drafted: 373})},
		{p + "     acc per pos = (0.667, 0.667, 0.312, 0.000, 0.000, 0.000, 0.000, 0.000)",
			part(sample.KindSpec, nil, 0.667, 0.667, 0.312, 0, 0, 0, 0, 0)},
		{p + "     acc per pos = ()", part(sample.KindSpec, nil)},
		{p + "     acc per pos = (" + strings.Repeat("0.900, ", 63) + "0.100)", part(sample.KindSpec, nil, append(rep(0.9, 63), 0.1)...)},
		{"0.05.071.261 I slot      release: id  0 | task 0 | stop processing: n_tokens = 148, truncated = 0", part(sample.KindDecode, nil)},
		{"0.04.013.608 I slot launch_slot_: id  0 | task 0 | processing task, is_child = 0", part(sample.KindDecode, nil)},
		{"1.02.846.974 I slot print_timing: id  1 | task 807 | n_gen =    159, tg =  22.63 t/s, tg_3s =  19.08 t/s",
			part(sample.KindDecode, map[sample.Field]float64{sample.GenTPS: 22.63})},
		{"2.02.846.974 I slot print_timing: id  3 | task 0 | n_decoded =   1081, tg =  12.93 t/s, tg_3s =  12.57 t/s",
			part(sample.KindDecode, map[sample.Field]float64{sample.GenTPS: 12.93})},
		{"Nov 20 09:00:10 gpu09 llama-server[77]: slot      release: id  0 | task 5 | stop processing: n_past = 148, truncated = 0",
			want{r: sample.Matched, kind: sample.KindDecode, engine: sample.EngineLlamaCpp, event: sample.EventPart, host: "gpu09", unit: "llama-server"}},
		// Older builds' continuation lines, without the slot.
		{"prompt eval time =     184.43 ms /   142 tokens (    1.30 ms per token,   769.93 tokens per second)",
			want{r: sample.Matched, kind: sample.KindPrefill, engine: sample.EngineLlamaCpp, f: map[sample.Field]float64{sample.NewTokens: 142, sample.PromptTPS: 769.93}}},
		{"       eval time =  469503.36 ms / 35716 tokens (   13.15 ms per token,    76.07 tokens per second)",
			part(sample.KindDecode, map[sample.Field]float64{sample.GenTPS: 76.07})},
		{"      total time =  469687.79 ms / 35858 tokens", part(sample.KindDecode, nil)},
		// Slot lines that are no request's figures, and noise around them.
		{"0.05.114.436 I slot get_availabl: id  0 | task -1 | selected slot by LCP similarity, f_sim_best = 1.000 (> 0.100 thold), f_keep = 0.142", want{r: sample.Ignored}},
		{"0.04.013.623 I slot   operator(): id  0 | task 0 | new prompt, n_ctx_slot = 16384, n_keep = 0, task.n_tokens = 21", want{r: sample.Ignored}},
		{"0.04.013.673 I slot init_sampler: id  0 | task 0 | init sampler, took 0.01 ms, tokens: text = 21, total = 21", want{r: sample.Ignored}},
		{"0.04.013.700 D slot process_toke: id  0 | task 0 | n_gen = 12, n_remaining = 116, next token:   310 ' the'", want{r: sample.Ignored}},
		{"0.00.038.322 I print_info: n_ctx_train           = 16384", want{r: sample.Ignored}},
		{"| task | eval = 5 |", want{r: sample.Ignored}},
		// Damaged: the marker is there, the figures are not.
		{p + "       eval time =     948.21 ms /   12x tokens (    7.47 ms per token,   133.94 tokens per second)", want{r: sample.Malformed}},
		{p + "     acc per pos = (" + strings.Repeat("0.900, ", 64) + "0.100)", want{r: sample.Malformed}},
		{"0.05.071.261 I slot      release: id  0 | task 0 | stop processing: n_tokens = x, truncated = 0", want{r: sample.Malformed}},
	} {
		check(t, c.line, c.w)
	}
}

func rep(x float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = x
	}
	return out
}

// captures reads the real engine's lines kept in testdata (llama-server 0.7.0, draft model
// at -lv 3 and 4, a broken and a weak draft, n-gram drafting with --log-jsonl, whose records are
// unwrapped to their message as ingest does).
func captures(t *testing.T) map[string][]string {
	t.Helper()
	paths, _ := filepath.Glob("testdata/llamacpp_070_*")
	out := map[string][]string{}
	for _, p := range paths {
		if strings.HasSuffix(p, ".golden") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			line := sc.Text()
			if strings.HasSuffix(p, ".jsonl") {
				var rec struct{ Type, Msg string }
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				if rec.Type != "log" {
					continue
				}
				line = strings.TrimSuffix(rec.Msg, "\n")
			}
			out[filepath.Base(p)] = append(out[filepath.Base(p)], line)
		}
	}
	if len(out) < 5 {
		t.Fatalf("captures: %d files", len(out))
	}
	return out
}

// TestLlamaCppCaptures: every line the real engine printed is matched or ignored, never
// malformed (format_drift's signal); every line of a request is matched.
func TestLlamaCppCaptures(t *testing.T) {
	p := NewParser(Options{})
	for name, lines := range captures(t) {
		for i, line := range lines {
			var s Record
			r := p.Parse([]byte(line), &s)
			if r == sample.Malformed {
				t.Errorf("%s:%d malformed (%s): %q", name, i+1, s.Why, line)
			}
			request := strings.Contains(line, "print_timing:") || strings.Contains(line, "stop processing") ||
				strings.Contains(line, "processing task,") || strings.Contains(line, "statistics ")
			if request && r != sample.Matched {
				t.Errorf("%s:%d %v: %q", name, i+1, r, line)
			}
		}
	}
}

// joined runs lines through a Parser and a Stream and returns every request sample, those
// carried by a release line and those Take hands out (after Flush at the end), in order.
func joined(t *testing.T, lines []string, times ...int64) []Record {
	t.Helper()
	p, st := NewParser(Options{}), NewStream(StreamOptions{})
	var out []Record
	var s Record
	for i, line := range lines {
		if p.Parse([]byte(line), &s) == sample.Matched {
			var at int64
			if i < len(times) {
				at = times[i]
			}
			st.Resolve(at, []byte("gpu07"), []byte("llama-server.service"), &s)
			if s.Event == sample.EventRequest {
				out = append(out, s)
			}
		}
		for st.Take(&s) {
			out = append(out, s)
		}
	}
	st.Flush(math.MaxInt64)
	for st.Take(&s) {
		out = append(out, s)
	}
	return out
}

type reqWant struct {
	steps, commit, stepMs, tps, ctx, acc, drafted, running float64
	npos                                                   int
}

func checkRequest(t *testing.T, s *Record, w reqWant) {
	t.Helper()
	if s.Kind != sample.KindDecode || s.Engine != sample.EngineLlamaCpp || s.Event != sample.EventRequest || string(s.Host) != "gpu07" {
		t.Fatalf("sample %v %v %v %q", s.Kind, s.Engine, s.Event, s.Host)
	}
	for f, x := range map[sample.Field]float64{sample.Steps: w.steps, sample.Commit: w.commit, sample.StepSeconds: w.stepMs / 1000, sample.GenTPS: w.tps,
		sample.Context: w.ctx, sample.Accepted: w.acc, sample.Drafted: w.drafted, sample.Running: w.running} {
		if v, ok := s.Get(f); !ok || math.Abs(v-x) > 1e-3*math.Max(1, x) {
			t.Errorf("%v = %v (%v), want %v", f, v, ok, x)
		}
	}
	if s.NPos != w.npos {
		t.Errorf("%d positions, want %d", s.NPos, w.npos)
	}
}

// TestLlamaCppJoinCaptures: the requests of the real captures, against the engine's own truth
// (its HTTP timings: G, draft_n, draft_n_accepted, predicted_ms): steps = G − 1 − A, commit =
// (G − 1) / steps, step = eval / steps, context = n_tokens − (G − 1) / 2.
func TestLlamaCppJoinCaptures(t *testing.T) {
	c := captures(t)
	good := joined(t, c["llamacpp_070_draft_lv4.log"])
	if len(good) != 2 {
		t.Fatalf("draft: %d requests", len(good))
	}
	checkRequest(t, &good[0], reqWant{48, 127.0 / 48, 948.21 / 48, 128 / 0.94821, 148 - 63.5, 79, 373, 1, 8})
	checkRequest(t, &good[1], reqWant{60, 127.0 / 60, 1118.36 / 60, 128 / 1.11836, 148 - 63.5, 67, 453, 1, 8})

	// The broken draft: everything drafted, nothing accepted; one token a step, as a request
	// that never drafted, but with its drafts.
	broken := joined(t, c["llamacpp_070_broken_lv4.log"])
	if len(broken) != 2 {
		t.Fatalf("broken: %d requests", len(broken))
	}
	checkRequest(t, &broken[0], reqWant{127, 1, 1948.92 / 127, 128 / 1.94892, 84.5, 0, 980, 1, 8})

	// n-gram drafting: mean len = 53.33 printed, 199 / 42 = 4.74 committed per verify step;
	// the second request found no match and printed no acceptance line.
	ngram := joined(t, c["llamacpp_070_ngram.jsonl"])
	if len(ngram) != 3 {
		t.Fatalf("n-gram: %d requests", len(ngram))
	}
	checkRequest(t, &ngram[0], reqWant{42, 199.0 / 42, 633.31 / 42, 200 / 0.63331, 220 - 99.5, 157, 157, 1, 0})
	checkRequest(t, &ngram[1], reqWant{199, 1, 731.49 / 199, 200 / 0.73149, 220 - 99.5, 0, 0, 1, 0})
	if ngram[1].Has(sample.AcceptRate) {
		t.Error("an acceptance rate for a request that never drafted")
	}
	checkRequest(t, &ngram[2], reqWant{49, 1, 473.10 / 49, 50 / 0.4731, 63 - 24.5, 0, 0, 1, 0})

	lv3 := joined(t, c["llamacpp_070_draft_lv3.log"])
	if len(lv3) != 2 {
		t.Fatalf("-lv 3: %d requests", len(lv3))
	}
	checkRequest(t, &lv3[1], reqWant{97, 127.0 / 97, 1210.21 / 97, 128 / 1.21021, 84.5, 30, 745, 1, 0})
}

// TestLlamaCppJoinInterleaved: two slots of one server in flight at once (times from the
// journal), each request Running 2; the same lines of another unit are another server.
func TestLlamaCppJoinInterleaved(t *testing.T) {
	const h0, h1 = "slot print_timing: id  0 | task 0 | ", "slot print_timing: id  1 | task 3 | "
	lines := []string{
		"slot launch_slot_: id  0 | task 0 | processing task, is_child = 0",
		"slot launch_slot_: id  1 | task 3 | processing task, is_child = 0",
		h1 + "n_gen =    159, tg =  22.63 t/s, tg_3s =  19.08 t/s",
		h0 + "prompt eval time =     109.15 ms /    21 tokens (    5.20 ms per token,   192.39 tokens per second)",
		h0 + "       eval time =     948.21 ms /   128 tokens (    7.47 ms per token,   133.94 tokens per second)",
		h0 + "draft acceptance = 0.21180 (   79 accepted /   373 generated), mean len =  2.65",
		"slot      release: id  0 | task 0 | stop processing: n_tokens = 148, truncated = 0",
		h1 + "prompt eval time =     109.15 ms /    21 tokens (    5.20 ms per token,   192.39 tokens per second)",
		h1 + "       eval time =    1118.36 ms /   128 tokens (    8.81 ms per token,   113.56 tokens per second)",
		h1 + "draft acceptance = 0.14790 (   67 accepted /   453 generated), mean len =  2.14",
		"slot      release: id  1 | task 3 | stop processing: n_tokens = 148, truncated = 0",
	}
	got := joined(t, lines)
	if len(got) != 2 || got[0].Value(sample.Accepted) != 79 || got[1].Value(sample.Accepted) != 67 ||
		got[0].Value(sample.Running) != 2 || got[1].Value(sample.Running) != 2 {
		t.Fatalf("%d requests: %+v", len(got), got)
	}
	// Without launch lines, with times: the decodes' overlap ([0.94, 2.0] s and [1.77, 3.0] s).
	lines = []string{lines[3], lines[4], lines[6], lines[7], lines[8], lines[10]}
	times := []int64{2e6, 2e6, 2e6, 3e6, 3e6, 3e6}
	got = joined(t, lines, times...)
	if len(got) != 2 || got[0].Value(sample.Running) != 1 || got[1].Value(sample.Running) != 2 {
		t.Fatalf("by overlap: %+v", got)
	}
}

// TestLlamaCppJoinNoRelease: a build without release lines: the request is handed out when
// its slot's next request starts, the last at the end of the input, each once.
func TestLlamaCppJoinNoRelease(t *testing.T) {
	c := captures(t)["llamacpp_070_draft_lv3.log"]
	var lines []string
	for _, l := range c {
		if !strings.Contains(l, "stop processing") {
			lines = append(lines, l)
		}
	}
	got := joined(t, lines)
	if len(got) != 2 || got[0].Value(sample.Accepted) != 1 || got[1].Value(sample.Accepted) != 30 {
		t.Fatalf("%d requests: %+v", len(got), got)
	}
	// No release: the context is the prompt evaluated plus G / 2 (the cached prefix unknown).
	if got[0].Value(sample.Context) != 21+64 || got[1].Value(sample.Context) != 1+64 {
		t.Errorf("contexts %v %v", got[0].Value(sample.Context), got[1].Value(sample.Context))
	}
}

// TestLlamaCppStatsDeltas: the statistics line's first reading stays cumulative, the next ones
// are the change since; a counter that goes down is a restart, read from zero.
func TestLlamaCppStatsDeltas(t *testing.T) {
	p, st := NewParser(Options{}), NewStream(StreamOptions{})
	var s Record
	stat := func(line string) Record {
		t.Helper()
		if r := p.Parse([]byte("0.05.071.224 I spec common_specu: "+line), &s); r != sample.Matched {
			t.Fatalf("%q: %v %s", line, r, s.Why)
		}
		st.Resolve(1, []byte("gpu07"), []byte("llama-server.service"), &s)
		return s
	}
	s1 := stat("statistics     draft-simple: #calls(b,g,a) =    1     48     48, #gen drafts =     48, #acc drafts =    32, #gen tokens =    373, #acc tokens =    79, #mean acc len = 2.65, #acc rate/pos = (0.667, 0.667, 0.312), dur(b,g,a) = 0.016, 41.300, 0.015 ms")
	if s1.Event != sample.EventTotals || s1.Value(sample.Accepted) != 79 || s1.Has(sample.Commit) {
		t.Fatalf("first: %v %v", s1.Event, s1.Value(sample.Accepted))
	}
	s2 := stat("statistics     draft-simple: #calls(b,g,a) =    2    107    107, #gen drafts =    107, #acc drafts =    68, #gen tokens =    826, #acc tokens =   146, #mean acc len = 2.36, #acc rate/pos = (0.636, 0.439, 0.215, 0.047, 0.028), dur(b,g,a) = 0.031, 92.757, 0.032 ms")
	if s2.Event != sample.EventStatsDelta || s2.Value(sample.Accepted) != 67 || s2.Value(sample.Drafted) != 453 || s2.NPos != 5 ||
		math.Abs(s2.PerPos[0]-0.610) > 0.0005 || s2.Has(sample.Commit) {
		t.Fatalf("second: %v %v %v %v", s2.Event, s2.Value(sample.Accepted), s2.Value(sample.Drafted), s2.PerPos[:s2.NPos])
	}
	s3 := stat("statistics     draft-simple: #calls(b,g,a) =    1    126    126, #gen drafts =    126, #acc drafts =     0, #gen tokens =    980, #acc tokens =     0, #mean acc len = 1.00, #acc rate/pos = (), dur(b,g,a) = 0.024, 99.859, 0.011 ms")
	if s3.Event != sample.EventStatsDelta || s3.Value(sample.Accepted) != 0 || s3.Value(sample.Drafted) != 980 || s3.NPos != 0 ||
		st.JoinCounts().Resets != 1 {
		t.Fatalf("restart: %v %v %v %+v", s3.Event, s3.Value(sample.Accepted), s3.Value(sample.Drafted), st.JoinCounts())
	}
}

// TestLlamaCppNoAllocs: a request's lines, its release's join and the statistics' deltas cost
// no allocation once the join's buffers have grown.
func TestLlamaCppNoAllocs(t *testing.T) {
	lines := captures(t)["llamacpp_070_draft_lv4.log"]
	bs := make([][]byte, len(lines))
	for i, l := range lines {
		bs[i] = []byte(l)
	}
	p, st := NewParser(Options{}), NewStream(StreamOptions{})
	host, unit := []byte("gpu07"), []byte("llama-server.service")
	var s Record
	run := func() {
		for _, line := range bs {
			if p.Parse(line, &s) != sample.Ignored {
				st.Resolve(1, host, unit, &s)
			}
			for st.Take(&s) {
			}
		}
	}
	run()
	if n := testing.AllocsPerRun(20, run); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}
