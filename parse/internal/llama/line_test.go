package llama

import (
	"strings"
	"testing"
)

// The slot lines of llama-server 0.7.0 (Debian 1:0.7.0+dfsg-2), as captured, from their "id" on.
func TestSlotLines(t *testing.T) {
	cases := []struct {
		line string
		want Line
		pos  []float64
	}{
		{"id  0 | task 0 | prompt eval time =     109.15 ms /    21 tokens (    5.20 ms per token,   192.39 tokens per second)",
			Line{Part: PartPrompt, Ms: 109.15, N: 21, TPS: 192.39, HasTPS: true}, nil},
		{"id  0 | task 0 |        eval time =     948.21 ms /   128 tokens (    7.47 ms per token,   133.94 tokens per second)",
			Line{Part: PartEval, Ms: 948.21, N: 128, TPS: 133.94, HasTPS: true}, nil},
		{"id  0 | task 0 |       total time =    1057.37 ms /   149 tokens", Line{Part: PartTotal, Ms: 1057.37, N: 149}, nil},
		{"id  0 | task 0 |    graphs reused =         45", Line{Part: PartGraphs, N: 45}, nil},
		{"id  0 | task 0 |   graph reallocs =          0    /     0        (same size) / (changed size)", Line{Part: PartGraphs}, nil},
		{"id  0 | task 0 | draft acceptance = 0.21180 (   79 accepted /   373 generated), mean len =  2.65",
			Line{Part: PartAccept, Rate: 0.2118, Accepted: 79, Drafted: 373, Mean: 2.65, HasMean: true}, nil},
		{"id  0 | task 0 | draft acceptance = 1.00000 (  157 accepted /   157 generated), mean len = 53.33",
			Line{Part: PartAccept, Rate: 1, Accepted: 157, Drafted: 157, Mean: 53.33, HasMean: true}, nil},
		{"id  0 | task 0 | draft acceptance = 0.00000 (    0 accepted /   980 generated), mean len =  1.00",
			Line{Part: PartAccept, Drafted: 980, Mean: 1, HasMean: true}, nil},
		{"id  0 | task 0 |      acc per pos = (0.667, 0.667, 0.312, 0.000, 0.000, 0.000, 0.000, 0.000)",
			Line{Part: PartPerPos, NPos: 8}, []float64{0.667, 0.667, 0.312, 0, 0, 0, 0, 0}},
		{"id  0 | task 0 |      acc per pos = ()", Line{Part: PartPerPos}, nil},
		{"id  1 | task 807 | n_gen =    159, tg =  22.63 t/s, tg_3s =  19.08 t/s", Line{Part: PartProgress, N: 159, TPS: 22.63, HasTPS: true}, nil},
		{"id  0 | task 0 | processing task, is_child = 0", Line{Part: PartLaunch}, nil},
		{"id  0 | task 0 | prompt processing, n_tokens =   4096, progress = 0.53, t =   3.12 s / 1312.82 tokens per second",
			Line{Part: PartPromptProgress, N: 4096, TPS: 1312.82, HasTPS: true}, nil},
		{"id  0 | task 0 | stop processing: n_tokens = 148, truncated = 0", Line{Part: PartRelease, N: 148}, nil},
		// Older builds (2025 to May 2026): n_decoded, n_past, the acceptance rate line, a bare
		// "slot print_timing: id  0 | task 0 | " header before its continuation lines.
		{"id  3 | task 0 | n_decoded =   1081, tg =  12.93 t/s, tg_3s =  12.57 t/s", Line{Part: PartProgress, N: 1081, TPS: 12.93, HasTPS: true}, nil},
		{"id  0 | task 541 | n_decoded =    131, tg =   1.98 t/s", Line{Part: PartProgress, N: 131, TPS: 1.98, HasTPS: true}, nil},
		{"id  0 | task 5 | stop processing: n_past = 148, truncated = 0", Line{Part: PartRelease, N: 148}, nil},
		{"id  0 | task 5 | draft acceptance rate = 0.58824 (  600 accepted /  1020 generated)",
			Line{Part: PartAccept, Rate: 0.58824, Accepted: 600, Drafted: 1020}, nil},
		{"id  1 | task 0 | draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.92, acceptance rate per position = (0.805, 0.632, 0.483)",
			Line{Part: PartAccept, Rate: 0.64479, Accepted: 167, Drafted: 259, Mean: 2.92, HasMean: true, NPos: 3}, []float64{0.805, 0.632, 0.483}},
		{"id  0 | task 0 |", Line{}, nil},
		// The engine prints inf and nan for a rate over 0 ms: read, not damage.
		{"id  0 | task 9 |        eval time =       0.00 ms /     1 tokens (    0.00 ms per token,      inf tokens per second)",
			Line{Part: PartEval, N: 1}, nil},
		{"id  0 | task 9 | prompt eval time =       0.00 ms /     0 tokens (    -nan ms per token,     -nan tokens per second)",
			Line{Part: PartPrompt}, nil},
		// Other slot lines: not a request's figures.
		{"id  0 | task -1 | selected slot by LRU, n_tokens = 0, t_last = -1", Line{}, nil},
		{"id  0 | task 0 | new prompt, n_ctx_slot = 16384, n_keep = 0, task.n_tokens = 21", Line{}, nil},
		{"id  0 | task 0 | n_gen = 12, n_remaining = 116, next token:   310 ' the'", Line{}, nil},
		{"id  0 | task 0 | init sampler, took 0.01 ms, tokens: text = 21, total = 21", Line{}, nil},
	}
	for _, c := range cases {
		var pos [MaxPos]float64
		got, why := Slot([]byte(c.line), pos[:])
		if why != "" {
			t.Errorf("%q: %s", c.line, why)
			continue
		}
		c.want.HasID = true
		if c.want.Part != PartNone || got.Slot != 0 || got.Task != 0 {
			c.want.Slot, c.want.Task = got.Slot, got.Task
		}
		if got != c.want {
			t.Errorf("%q:\n got %+v\nwant %+v", c.line, got, c.want)
		}
		for i, x := range c.pos {
			if pos[i] != x {
				t.Errorf("%q: position %d = %v, want %v", c.line, i, pos[i], x)
			}
		}
	}
	l, _ := Slot([]byte("id  1 | task 807 | n_gen =    159, tg =  22.63 t/s, tg_3s =  19.08 t/s"), nil)
	if l.Slot != 1 || l.Task != 807 {
		t.Errorf("slot %d task %d", l.Slot, l.Task)
	}
	if l, _ := Slot([]byte("id  0 | task -1 | sampler chain: logits"), nil); l.Task != -1 {
		t.Errorf("task %d", l.Task)
	}
}

// TestSlotLinesDamaged: a request's line that does not read right names its damage.
func TestSlotLinesDamaged(t *testing.T) {
	for _, line := range []string{
		"id  0 | task 0 | prompt eval time =     109.15 ms /    x tokens (    5.20 ms per token,   192.39 tokens per second)",
		"id  0 | task 0 |        eval time =     948.21 ms /   128 tokens (    7.47 ms per token,   133.94 tokens",
		"id  0 | task 0 |        eval time =     948.21 ms /   128 tokens (    7.47 ms per token,   133.94 tokens per second) eval time = 1 ms",
		"id  0 | task 0 |       total time =    1057.37 s /   149 tokens",
		"id  0 | task 0 |    graphs reused =         4x",
		"id  0 | task 0 | draft acceptance = 1.21180 (   79 accepted /   373 generated), mean len =  2.65",
		"id  0 | task 0 | draft acceptance = 0.21180 (   79 accepted /   373 generated), mean len =  0.65",
		"id  0 | task 0 |      acc per pos = (0.667, 1.667)",
		"id  0 | task 0 |      acc per pos = (0.667, 0.6",
		"id  0 | task 0 |      acc per pos = (" + strings.Repeat("0.5, ", MaxPos) + "0.5)",
		"id  0 | task 0 | stop processing: n_tokens = -3, truncated = 0",
		"id  0 | task 0 | stop processing: truncated = 0",
		"id  1 | task 807 | n_gen =    159, tg =  x t/s",
		"id  0 | task x | prompt eval time = 1 ms / 1 tokens (1 ms per token, 1 tokens per second)",
		"id  0 | task 0 prompt eval time = 1 ms / 1 tokens (1 ms per token, 1 tokens per second)",
	} {
		var pos [MaxPos]float64
		if _, why := Slot([]byte(line), pos[:]); why == "" {
			t.Errorf("%q: read", line)
		}
	}
	// Not a slot line at all: "| task " in other text.
	if l, why := Slot([]byte("| task | time = 5 |"), nil); why != "" || l.Part != PartNone {
		t.Errorf("a table row: %+v %q", l, why)
	}
}

// TestBareLines: older builds' continuation lines and llama_perf_context_print's.
func TestBareLines(t *testing.T) {
	for _, c := range []struct {
		line string
		part Part
		n    float64
	}{
		{"prompt eval time =     184.43 ms /   142 tokens (    1.30 ms per token,   769.93 tokens per second)", PartPrompt, 142},
		{"       eval time =  469503.36 ms / 35716 tokens (   13.15 ms per token,    76.07 tokens per second)", PartEval, 35716},
		{"      total time =  469687.79 ms / 35858 tokens", PartTotal, 35858},
		{"   graphs reused =         42", PartGraphs, 42},
		{"draft acceptance = 0.74482 (24673 accepted / 33126 generated)", PartAccept, 0},
		{"       eval time =    4178.32 ms /    31 runs   (  134.78 ms per token,     7.42 tokens per second)", PartEval, 31},
	} {
		var pos [MaxPos]float64
		l, why := Message([]byte(c.line), Line{}, pos[:])
		if why != "" || l.Part != c.part || l.N != c.n || l.HasID {
			t.Errorf("%q: %+v %q", c.line, l, why)
		}
	}
}

func TestLeads(t *testing.T) {
	b := []byte("0.05.071.041 I slot print_timing: id  0 | task 0 | eval time = …")
	at := strings.Index(string(b), "| task ")
	if got := SlotLead(b, at); string(b[got:got+5]) != "id  0" {
		t.Errorf("slot lead at %q", b[got:])
	}
	if got := SlotLead([]byte("x | task 1"), 2); got != 2 {
		t.Errorf("no id: lead %d", got)
	}
	b = []byte("spec common_specu: statistics     draft-simple: #calls(b,g,a) = 1 2 3")
	if got := StatsLead(b, strings.Index(string(b), "#calls")); string(b[got:got+10]) != "statistics" {
		t.Errorf("stats lead at %q", b[got:])
	}
	b = []byte("slot print_timing: id  0 | task 0 | prompt eval time = 1")
	if got := EvalLead(b, strings.Index(string(b), "eval time")); string(b[got:got+6]) != "prompt" {
		t.Errorf("eval lead at %q", b[got:])
	}
}

func TestStats(t *testing.T) {
	var pos [MaxPos]float64
	st, why := ReadStats([]byte("statistics     draft-simple: #calls(b,g,a) =    2    107    107, #gen drafts =    107, #acc drafts =    68, #gen tokens =    826, #acc tokens =   146, #mean acc len = 2.36, #acc rate/pos = (0.636, 0.439, 0.215, 0.047, 0.028), dur(b,g,a) = 0.031, 92.757, 0.032 ms"), pos[:])
	if why != "" || string(st.Name) != "draft-simple" || st.Calls != [3]float64{2, 107, 107} || st.GenDrafts != 107 ||
		st.AccDrafts != 68 || st.GenTokens != 826 || st.AccTokens != 146 || st.Mean != 2.36 || !st.HasMean || !st.HasDrafts ||
		st.NPos != 5 || pos[4] != 0.028 {
		t.Fatalf("%+v %q", st, why)
	}
	st, why = ReadStats([]byte("statistics     draft-simple: #calls(b,g,a) =    1    126    126, #gen drafts =    126, #acc drafts =     0, #gen tokens =    980, #acc tokens =     0, #mean acc len = 1.00, #acc rate/pos = (), dur(b,g,a) = 0.024, 99.859, 0.011 ms"), pos[:])
	if why != "" || st.NPos != 0 || st.GenTokens != 980 {
		t.Fatalf("empty list: %+v %q", st, why)
	}
	for _, bad := range []string{
		"statistics     draft-simple #calls(b,g,a) =    1    126    126, #gen tokens =    980, #acc tokens =     0",
		"statistics     draft-simple: #calls(b,g,a) =    1    126, #gen tokens =    980, #acc tokens =     0",
		"statistics     draft-simple: #calls(b,g,a) =    1    126    126, #gen tokens =    980",
		"statistics     draft-simple: #calls(b,g,a) =    1    126    126, #gen tokens =    980, #acc tokens =     0, #mean acc len = 0.5",
		"statistics     draft-simple: #calls(b,g,a) =    1    126    126, #gen tokens =    980, #acc tokens =     0, #acc tokens =     0",
	} {
		if _, why := ReadStats([]byte(bad), pos[:]); why == "" {
			t.Errorf("%q: read", bad)
		}
	}
}
