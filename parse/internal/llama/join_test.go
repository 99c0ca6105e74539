package llama

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// feeder drives a Join with slot lines as the engine prints them (from "id" on, or bare).
type feeder struct {
	t *testing.T
	j Join
}

func (f *feeder) line(server string, at time.Duration, text string) *Request {
	f.t.Helper()
	var pos [MaxPos]float64
	var l Line
	var why string
	if strings.HasPrefix(text, "id ") {
		l, why = Slot([]byte(text), pos[:])
	} else {
		l, why = Message([]byte(text), Line{}, pos[:])
	}
	if why != "" {
		f.t.Fatalf("%q: %s", text, why)
	}
	return f.j.Line([]byte(server), int64(at), &l, pos[:l.NPos])
}

// lines feeds each line and returns the request the last one ended, if any.
func (f *feeder) lines(server string, at time.Duration, text ...string) *Request {
	f.t.Helper()
	var r *Request
	for _, l := range text {
		r = f.line(server, at, l)
	}
	return r
}

func (f *feeder) take() []Request {
	var out []Request
	for r, ok := f.j.Take(); ok; r, ok = f.j.Take() {
		out = append(out, *r)
	}
	return out
}

// block is a request's print_timing block of 0.7.0, with or without its acceptance lines.
func block(slot, task string, promptMs, prompt, evalMs, g string, accept ...string) []string {
	h := "id " + fmt.Sprintf("%2s", slot) + " | task " + task + " | "
	out := []string{
		h + "prompt eval time = " + promptMs + " ms / " + prompt + " tokens (    5.20 ms per token,   192.39 tokens per second)",
		h + "       eval time = " + evalMs + " ms / " + g + " tokens (    7.47 ms per token,   133.94 tokens per second)",
		h + "      total time =    1057.37 ms /   149 tokens",
		h + "   graphs reused =         45",
		h + "  graph reallocs =          0    /     0        (same size) / (changed size)",
	}
	for _, a := range accept {
		out = append(out, h+a)
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestJoinDraftRequest: the real engine's request (draft model, -lv 4), and its truth from the
// HTTP timings: predicted_n 128, draft_n 373, draft_n_accepted 79, predicted_ms 948.21.
func TestJoinDraftRequest(t *testing.T) {
	f := &feeder{t: t}
	const s = "gpu07\x00llama-server.service"
	if r := f.line(s, 0, "id  0 | task 0 | processing task, is_child = 0"); r != nil {
		t.Fatal("a launch ended a request")
	}
	for _, l := range block("0", "0", "    109.15", "   21", "    948.21", "  128",
		"draft acceptance = 0.21180 (   79 accepted /   373 generated), mean len =  2.65",
		"     acc per pos = (0.667, 0.667, 0.312, 0.000, 0.000, 0.000, 0.000, 0.000)") {
		if r := f.line(s, time.Second, l); r != nil {
			t.Fatalf("%q ended the request before its release", l)
		}
	}
	r := f.line(s, time.Second, "id  0 | task 0 | stop processing: n_tokens = 148, truncated = 0")
	if r == nil {
		t.Fatal("no request on the release line")
	}
	if r.G != 128 || r.Accepted != 79 || r.Drafted != 373 || r.EvalMs != 948.21 || r.NTokens != 148 || r.Running != 1 ||
		r.NPos != 8 || r.Pos[2] != 0.312 || r.Mean != 2.65 || !r.HasID || r.Slot != 0 || r.Task != 0 || string(r.Key) != s {
		t.Fatalf("request %+v", r)
	}
	fg, ok := r.Figures()
	// 128 − 1 − 79 = 48 verify steps; 127 tokens in them; context 148 − 127/2.
	if !ok || fg.Steps != 48 || !near(fg.Commit, 127.0/48) || !near(fg.StepSeconds, 0.94821/48) ||
		!near(fg.GenTPS, 128/0.94821) || fg.Context != 84.5 || !fg.FromRelease {
		t.Fatalf("figures %+v", fg)
	}
	if held, ready := f.j.Pending(); held != 0 || ready != 0 {
		t.Fatalf("pending %d %d after the release", held, ready)
	}
}

// TestJoinNgram: n-gram drafting (the --log-jsonl capture): a request that drafted in 42 of its
// steps prints mean len = 53.33, and committed 199 / 42 = 4.74 tokens per verify step; one that
// found no match prints no acceptance line and committed one token a step.
func TestJoinNgram(t *testing.T) {
	f := &feeder{t: t}
	lines := append(block("0", "0", "    109.09", "   21", "    633.31", "  200",
		"draft acceptance = 1.00000 (  157 accepted /   157 generated), mean len = 53.33"),
		"id  0 | task 0 | stop processing: n_tokens = 220, truncated = 0")
	r := f.lines("h", time.Second, lines...)
	fg, ok := r.Figures()
	if !ok || fg.Steps != 42 || !near(fg.Commit, 199.0/42) || r.Mean != 53.33 || fg.Context != 220-199.0/2 {
		t.Fatalf("drafted: %+v %+v", r, fg)
	}
	lines = append(block("0", "44", "    238.26", "    1", "    731.49", "  200"),
		"id  0 | task 44 | stop processing: n_tokens = 220, truncated = 0")
	r = f.lines("h", 2*time.Second, lines...)
	fg, ok = r.Figures()
	if !ok || r.HasAccept || r.Accepted != 0 || r.Drafted != 0 || fg.Steps != 199 || fg.Commit != 1 {
		t.Fatalf("no drafts: %+v %+v", r, fg)
	}
}

// TestJoinTwoSlots: interleaved slots of one server, each request's Running the most in
// flight during its life; another server's requests are apart.
func TestJoinTwoSlots(t *testing.T) {
	f := &feeder{t: t}
	f.line("a", 1*time.Second, "id  0 | task 0 | processing task, is_child = 0")
	f.line("b", 1*time.Second, "id  0 | task 0 | processing task, is_child = 0") // another server
	f.line("a", 2*time.Second, "id  1 | task 5 | processing task, is_child = 0")
	f.line("a", 3*time.Second, "id  1 | task 5 | n_gen =    159, tg =  22.63 t/s, tg_3s =  19.08 t/s")
	r0 := f.lines("a", 4*time.Second, append(block("0", "0", "10", "21", "900", "128"), "id  0 | task 0 | stop processing: n_tokens = 148, truncated = 0")...)
	if r0 == nil || r0.Task != 0 || r0.Running != 2 {
		t.Fatalf("slot 0: %+v", r0)
	}
	f.line("a", 5*time.Second, "id  0 | task 7 | processing task, is_child = 0")
	r1 := f.lines("a", 6*time.Second, append(block("1", "5", "10", "21", "900", "128"), "id  1 | task 5 | stop processing: n_tokens = 148, truncated = 0")...)
	if r1 == nil || r1.Slot != 1 || r1.Running != 2 {
		t.Fatalf("slot 1: %+v", r1)
	}
	r2 := f.lines("a", 7*time.Second, append(block("0", "7", "10", "21", "900", "128"), "id  0 | task 7 | stop processing: n_tokens = 148, truncated = 0")...)
	if r2 == nil || r2.Running != 2 { // task 7 started while task 5 still ran
		t.Fatalf("slot 0 again: %+v", r2)
	}
	f.line("a", 8*time.Second, "id  0 | task 9 | processing task, is_child = 0")
	r3 := f.lines("a", 9*time.Second, append(block("0", "9", "10", "21", "900", "128"), "id  0 | task 9 | stop processing: n_tokens = 148, truncated = 0")...)
	if r3 == nil || r3.Running != 1 {
		t.Fatalf("alone: %+v", r3)
	}
}

// TestJoinNoRelease: a finished request whose release does not come is handed out when its
// slot's next request starts, or by Flush at the end of the input; never twice.
func TestJoinNoRelease(t *testing.T) {
	f := &feeder{t: t}
	f.line("a", time.Second, "id  0 | task 0 | processing task, is_child = 0")
	if r := f.lines("a", 2*time.Second, block("0", "0", "10", "21", "900", "128", "draft acceptance = 0.21180 (   79 accepted /   373 generated), mean len =  2.65")...); r != nil {
		t.Fatal("a request without its release ended")
	}
	if got := f.take(); len(got) != 0 {
		t.Fatalf("taken before its slot moved on: %+v", got)
	}
	f.line("a", 3*time.Second, "id  0 | task 3 | processing task, is_child = 0")
	got := f.take()
	if len(got) != 1 || got[0].Task != 0 || got[0].Accepted != 79 || got[0].HasRelease || got[0].Running != 1 {
		t.Fatalf("taken at the next launch: %+v", got)
	}
	f.lines("a", 4*time.Second, block("0", "3", "10", "21", "900", "128")...)
	if n := f.j.Flush(int64(3 * time.Second)); n != 0 {
		t.Fatalf("flushed %d requests whose last line is later", n)
	}
	if n := f.j.Flush(math.MaxInt64); n != 1 {
		t.Fatalf("flushed %d at the end", n)
	}
	got = f.take()
	fg, ok := got[0].Figures()
	// No release: the context is the prompt evaluated plus G / 2.
	if len(got) != 1 || got[0].Task != 3 || !ok || fg.FromRelease || fg.Context != 21+64 {
		t.Fatalf("flushed: %+v %+v", got, fg)
	}
	if n := f.j.Flush(math.MaxInt64); n != 0 || len(f.take()) != 0 {
		t.Fatal("a request handed out twice")
	}
}

// TestJoinOlderBuilds: builds that printed the timings as bare lines after a header, the
// release before them (2024) or after them.
func TestJoinOlderBuilds(t *testing.T) {
	f := &feeder{t: t}
	bare := []string{
		"prompt eval time =     184.43 ms /   142 tokens (    1.30 ms per token,   769.93 tokens per second)",
		"       eval time =    4695.03 ms /   357 tokens (   13.15 ms per token,    76.07 tokens per second)",
		"      total time =    4879.46 ms /   499 tokens",
		"draft acceptance rate = 0.58824 (  200 accepted /   340 generated)",
	}
	// The release first: the request is complete when another slot line follows.
	f.line("a", time.Second, "id  0 | task 0 | stop processing: n_past = 498, truncated = 0")
	f.lines("a", time.Second, bare...)
	f.line("a", 2*time.Second, "id  0 | task 1 | n_decoded =    131, tg =   1.98 t/s")
	got := f.take()
	if len(got) != 1 || got[0].G != 357 || got[0].Accepted != 200 || got[0].NTokens != 498 || got[0].PromptN != 142 {
		t.Fatalf("release first: %+v", got)
	}
	// The release after: it claims the bare block. Task 1, seen running at 2 s and not
	// finished, ran beside it.
	f.lines("a", 10*time.Second, bare...)
	r := f.line("a", 10*time.Second, "id  1 | task 4 | stop processing: n_past = 498, truncated = 0")
	if r == nil || r.Slot != 1 || r.Task != 4 || !r.HasID || r.G != 357 || r.Accepted != 200 || r.Running != 2 {
		t.Fatalf("release after: %+v", r)
	}
	// llama_perf_context_print's lines (llama-cli), no slot line: no request.
	f.lines("a", 4*time.Second, "prompt eval time =     925.78 ms /    24 tokens (   38.57 ms per token,    25.92 tokens per second)",
		"       eval time =    4178.32 ms /    31 runs   (  134.78 ms per token,     7.42 tokens per second)")
	if n := f.j.Flush(math.MaxInt64); n != 0 {
		t.Fatalf("llama-cli's figures flushed as %d requests", n)
	}
}

// TestJoinOverlap: without launch lines, Running is the most finished decodes of the server
// that overlapped; unknown without times.
func TestJoinOverlap(t *testing.T) {
	f := &feeder{t: t}
	end := func(task string, at time.Duration, evalMs string) *Request {
		return f.lines("a", at, append(block("0", task, "100", "21", evalMs, "128"), "id  0 | task "+task+" | stop processing: n_tokens = 148, truncated = 0")...)
	}
	if r := end("1", 10*time.Second, "4900"); r.Running != 1 { // [5 s, 10 s]
		t.Fatalf("first: %d", r.Running)
	}
	if r := end("2", 12*time.Second, "3900"); r.Running != 2 { // [8 s, 12 s]
		t.Fatalf("overlapping: %d", r.Running)
	}
	if r := end("3", 20*time.Second, "900"); r.Running != 1 { // [19 s, 20 s]
		t.Fatalf("alone: %d", r.Running)
	}
	if r := end("4", 0, "900"); r.Running != 0 {
		t.Fatalf("no time: %d", r.Running)
	}
}

// TestJoinBounds: at most MaxPending requests are held, the oldest forgotten and counted; at
// most MaxReady wait for Take.
func TestJoinBounds(t *testing.T) {
	f := &feeder{t: t}
	for i := 0; i < MaxPending+12; i++ {
		f.line("a", time.Second, fmt.Sprintf("id %2d | task %d | processing task, is_child = 0", i, i))
	}
	if held, _ := f.j.Pending(); held != MaxPending || f.j.Counts.Evicted != 12 {
		t.Fatalf("held %d, evicted %d", held, f.j.Counts.Evicted)
	}
	f = &feeder{t: t}
	for i := 0; i < MaxReady+4; i++ {
		f.lines("a", time.Second, block(fmt.Sprintf("%2d", i), fmt.Sprint(i), "10", "21", "900", "128")...)
	}
	f.j.Flush(math.MaxInt64)
	if _, ready := f.j.Pending(); ready != MaxReady || f.j.Counts.Dropped != 4 || len(f.take()) != MaxReady {
		t.Fatalf("ready %d, dropped %d", ready, f.j.Counts.Dropped)
	}
}

// TestJoinTaskIDsAgain: after a restart the task ids start over; the old request is not mixed
// into the new one.
func TestJoinTaskIDsAgain(t *testing.T) {
	f := &feeder{t: t}
	f.lines("a", time.Second, block("0", "0", "10", "21", "900", "128")...)
	f.line("a", 2*time.Second, "id  0 | task 0 | processing task, is_child = 0")
	if got := f.take(); len(got) != 1 || got[0].G != 128 {
		t.Fatalf("the old request: %+v", got)
	}
	r := f.lines("a", 3*time.Second, append(block("0", "0", "10", "21", "500", "64"), "id  0 | task 0 | stop processing: n_tokens = 84, truncated = 0")...)
	if r == nil || r.G != 64 || r.Running != 1 {
		t.Fatalf("the new request: %+v", r)
	}
	f.lines("b", time.Second, block("0", "0", "10", "21", "900", "128")...)
	f.j.Restart([]byte("b"))
	if got := f.take(); len(got) != 1 {
		t.Fatalf("restart: %+v", got)
	}
}

// TestFiguresNoStep: one token, or more accepted than generated, says nothing of a step.
func TestFiguresNoStep(t *testing.T) {
	for _, r := range []Request{
		{G: 1, EvalMs: 1, HasEval: true},
		{G: 10, EvalMs: 100, HasEval: true, Accepted: 9, HasAccept: true},
		{G: 10, HasEval: true},
		{G: 10, EvalMs: 100},
	} {
		if f, ok := r.Figures(); ok {
			t.Errorf("%+v: %+v", r, f)
		}
	}
}
