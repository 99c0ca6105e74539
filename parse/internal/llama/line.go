// Package llama reads llama.cpp's server lines byte by byte into small structs, and joins the
// lines of one request into one finished request (join.go) and the cumulative statistics into
// deltas (delta.go). It knows nothing of package parse's Sample, so that it is tested on string
// literals; parse keeps the glue (llamacpp.go, llamajoin.go). The shapes are those of
// tools/server/server-context.cpp's print_timing and common/speculative.cpp, llama.cpp 0.7.0
// (Debian 1:0.7.0+dfsg-2), format strings read from its binaries; older ones are named where read.
package llama

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/sample"
)

// MaxPos bounds a per-position list: --spec-draft-n-max goes up to 64 (n-gram drafts).
const MaxPos = sample.MaxPerPosition

// Part says which line of a request a slot line is.
type Part uint8

const (
	PartNone     Part = iota
	PartPrompt        // prompt eval time = 109.15 ms / 21 tokens (…)
	PartEval          // eval time = 948.21 ms / 128 tokens (…)
	PartTotal         // total time = 1057.37 ms / 149 tokens
	PartGraphs        // graphs reused = 45, graph reallocs = 0 / 0 (…)
	PartAccept        // draft acceptance = 0.21180 (79 accepted / 373 generated), mean len = 2.65
	PartPerPos        // acc per pos = (0.667, …)
	PartProgress      // n_gen = 159, tg = 22.63 t/s, tg_3s = 19.08 t/s (older: n_decoded)
	PartLaunch        // processing task, is_child = 0
	PartRelease       // stop processing: n_tokens = 148, truncated = 0 (older: n_past)
	// PartPromptProgress: prompt processing, n_tokens = 4096, progress = 0.53, t = 3.12 s /
	// 1312.82 tokens per second: a long prompt's cumulative progress, printed from 3 s on.
	PartPromptProgress
)

// Line is one slot line, read. Figures a line does not carry are zero.
type Line struct {
	Part Part
	// HasID: the line named its slot and task ("id  0 | task 5 | "). The continuation lines of
	// older builds' multi-line print ("prompt eval time = …" alone on its line) do not.
	HasID      bool
	Slot, Task int
	// Ms and N: a timing line's milliseconds and tokens; N is also the release's n_tokens, the
	// progress line's n_gen and the graphs line's count. TPS is the printed tokens per second
	// (HasTPS false when absent, or printed inf or nan).
	Ms, N, TPS float64
	HasTPS     bool
	// The acceptance line: its rate, counts and mean (1 + accepted / drafting steps: never a
	// commit length, see docs/formats.md).
	Rate, Accepted, Drafted, Mean float64
	HasMean                       bool
	NPos                          int // per-position rates read into the caller's list
}

// Slot reads a slot line from its "id" on ("id  0 | task 5 | prompt eval time = …"), the
// rates of a per-position list into pos. why is empty for a line read, or names its damage; a
// slot line whose message is none of a request's lines is PartNone, why empty (ignored).
func Slot(b []byte, pos []float64) (l Line, why string) {
	i, ok := 0, false
	if !bytes.HasPrefix(b, []byte("id ")) {
		return l, "" // "| task " in a line that is not a slot's
	}
	i = skip(b, 3)
	if l.Slot, i, ok = integer(b, i); !ok {
		return l, "llama.cpp slot line: bad id"
	}
	if !bytes.HasPrefix(b[i:], []byte(" | task ")) {
		return l, "llama.cpp slot line: no task"
	}
	if l.Task, i, ok = integer(b, i+len(" | task ")); !ok {
		return l, "llama.cpp slot line: bad task"
	}
	if i < len(b) && b[i] == ' ' {
		i++
	}
	if i >= len(b) || b[i] != '|' {
		return l, "llama.cpp slot line: no '|' after the task"
	}
	l.HasID = true
	return Message(b[i+1:], l, pos)
}

// Message reads a slot line's message (after "| task 5 |", or a whole continuation line) into
// l; see Slot.
func Message(b []byte, l Line, pos []float64) (Line, string) {
	b = lex.TrimSpace(b)
	switch {
	case len(b) == 0:
		return l, "" // older builds' header: "slot print_timing: id  0 | task 0 | " then lines
	case cut(&b, "prompt eval time = "):
		l.Part = PartPrompt
		return timing(b, l, true)
	case cut(&b, "eval time = "):
		l.Part = PartEval
		return timing(b, l, true)
	case cut(&b, "total time = "):
		l.Part = PartTotal
		return timing(b, l, false)
	case cut(&b, "graphs reused = "):
		l.Part = PartGraphs
		return count(b, l)
	case cut(&b, "graph reallocs = "):
		l.Part = PartGraphs
		return reallocs(b, l)
	case bytes.HasPrefix(b, []byte("draft acceptance ")):
		l.Part = PartAccept
		return Acceptance(b, l, pos)
	case cut(&b, "acc per pos = "):
		l.Part = PartPerPos
		return perPos(b, l, pos)
	case cut(&b, "n_gen = ") || cut(&b, "n_decoded = "):
		return progress(b, l)
	case cut(&b, "prompt processing, n_tokens = "):
		return promptProgress(b, l)
	case cut(&b, "processing task"):
		l.Part = PartLaunch
		return l, ""
	case cut(&b, "stop processing: "):
		l.Part = PartRelease
		return release(b, l)
	}
	return l, "" // another slot line (get_availabl, init_sampler, …): not a request's
}

// cut removes lead from the start of *b when it is there.
func cut(b *[]byte, lead string) bool {
	if !bytes.HasPrefix(*b, []byte(lead)) {
		return false
	}
	*b = (*b)[len(lead):]
	return true
}

// skip returns the index after the blanks at b[i:].
func skip(b []byte, i int) int {
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return i
}

// integer reads a whole number at b[i:], a leading '-' allowed ("task -1").
func integer(b []byte, i int) (int, int, bool) {
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	j := i
	for j < len(b) && lex.IsDigit(b[j]) {
		j++
	}
	x, ok := lex.Integer(b[i:j])
	if !ok || x > 1<<31 {
		return 0, i, false
	}
	if neg {
		x = -x
	}
	return int(x), j, true
}

// figure reads a printf %f at b[i:] after blanks: a plain number, or inf / nan (which the
// engine prints for a rate over 0 ms), reported as not finite rather than as damage.
func figure(b []byte, i int) (x float64, j int, finite, ok bool) {
	i = skip(b, i)
	if x, n := lex.Number(b[i:]); n > 0 {
		return x, i + n, true, true
	}
	k := i
	if k < len(b) && b[k] == '-' {
		k++
	}
	for _, w := range [...]string{"inf", "nan"} {
		if bytes.HasPrefix(b[k:], []byte(w)) {
			return 0, k + len(w), false, true
		}
	}
	return 0, i, false, false
}

// timing reads "948.21 ms / 128 tokens", then, with rates, " (7.47 ms per token, 133.94 tokens
// per second)". llama_perf_context_print's eval line counts "runs" instead of tokens.
func timing(b []byte, l Line, rates bool) (Line, string) {
	ms, i, fin, ok := figure(b, 0)
	if !ok || !fin || !bytes.HasPrefix(b[i:], []byte(" ms /")) {
		return l, "llama.cpp timing: bad milliseconds"
	}
	n, i, ok := integer(b, skip(b, i+len(" ms /")))
	if !ok || n < 0 {
		return l, "llama.cpp timing: bad token count"
	}
	l.Ms, l.N = ms, float64(n)
	switch {
	case cut2(b, &i, " tokens"), cut2(b, &i, " runs"):
	default:
		return l, "llama.cpp timing: no 'tokens' after the count"
	}
	if !rates {
		return l, tail(b, i)
	}
	i = skip(b, i)
	if !cut2(b, &i, "(") {
		return l, "llama.cpp timing: no rates"
	}
	_, i, _, ok = figure(b, i)
	if !ok || !cut2(b, &i, " ms per token,") {
		return l, "llama.cpp timing: bad ms per token"
	}
	l.TPS, i, l.HasTPS, ok = figure(b, i)
	if !ok || !cut2(b, &i, " tokens per second)") {
		return l, "llama.cpp timing: bad tokens per second"
	}
	return l, tail(b, i)
}

// cut2 is cut at b[*i:].
func cut2(b []byte, i *int, lead string) bool {
	if !bytes.HasPrefix(b[*i:], []byte(lead)) {
		return false
	}
	*i += len(lead)
	return true
}

// tail accepts what follows a line's known figures only when it is nothing: a glued record
// must not pass for a request's line.
func tail(b []byte, i int) string {
	if len(lex.TrimSpace(b[i:])) != 0 {
		return "llama.cpp slot line: text after the figures"
	}
	return ""
}

// count reads "        45" (graphs reused, %10d).
func count(b []byte, l Line) (Line, string) {
	n, i, ok := integer(b, skip(b, 0))
	if !ok || n < 0 {
		return l, "llama.cpp graphs reused: bad count"
	}
	l.N = float64(n)
	return l, tail(b, i)
}

// reallocs reads "         0    /     0        (same size) / (changed size)": two counts, then labels.
func reallocs(b []byte, l Line) (Line, string) {
	n, i, ok := integer(b, skip(b, 0))
	if !ok || n < 0 {
		return l, "llama.cpp graph reallocs: bad count"
	}
	i = skip(b, i)
	if !cut2(b, &i, "/") {
		return l, "llama.cpp graph reallocs: no second count"
	}
	if _, _, ok = integer(b, skip(b, i)); !ok {
		return l, "llama.cpp graph reallocs: bad second count"
	}
	l.N = float64(n)
	return l, ""
}

// perPos reads "(0.667, 0.667, 0.312, 0.000)"; "()" is a request whose drafts were never
// verified.
func perPos(b []byte, l Line, pos []float64) (Line, string) {
	n, ok := rates(b, pos)
	if !ok {
		return l, "llama.cpp acc per pos: bad list"
	}
	l.NPos = n
	return l, ""
}

// rates reads a whole "(…)" list of rates in [0, 1] into pos.
func rates(v []byte, pos []float64) (int, bool) {
	_, _, n, end, ok := lex.List(v, '(', ')', pos)
	for _, x := range pos[:n] {
		ok = ok && x <= 1
	}
	return n, ok && end == len(v)
}

// progress reads "159, tg =  22.63 t/s, tg_3s =  19.08 t/s" (before it "n_gen = " or, in older
// builds, "n_decoded = "; the oldest lack tg_3s). "n_gen = 12, n_remaining = …" is the
// debug trace of one token: not progress.
func progress(b []byte, l Line) (Line, string) {
	n, i, ok := integer(b, skip(b, 0))
	if !ok || n < 0 {
		return l, "llama.cpp progress: bad count"
	}
	if !cut2(b, &i, ", tg = ") {
		return l, "" // another n_gen line (the per-token debug trace)
	}
	l.Part, l.N = PartProgress, float64(n)
	l.TPS, i, l.HasTPS, ok = figure(b, i)
	if !ok || !cut2(b, &i, " t/s") {
		return l, "llama.cpp progress: bad tg"
	}
	if cut2(b, &i, ", tg_3s = ") {
		if _, i, _, ok = figure(b, i); !ok || !cut2(b, &i, " t/s") {
			return l, "llama.cpp progress: bad tg_3s"
		}
	}
	return l, tail(b, i)
}

// release reads "n_tokens = 148, truncated = 0" (older builds: "n_past = 148, …"): the slot's
// tokens when the request ended, the whole prompt and all but the last generated token.
func release(b []byte, l Line) (Line, string) {
	if !cut(&b, "n_tokens = ") && !cut(&b, "n_past = ") {
		return l, "llama.cpp release: no n_tokens"
	}
	n, _, ok := integer(b, 0)
	if !ok || n < 0 {
		return l, "llama.cpp release: bad n_tokens"
	}
	l.N = float64(n)
	return l, ""
}

// promptProgress reads "4096, progress = 0.53, t =   3.12 s / 1312.82 tokens per second": the
// prompt tokens evaluated so far and their rate (print_timings_pp, server-context.cpp 0.7.0).
func promptProgress(b []byte, l Line) (Line, string) {
	n, i, ok := integer(b, skip(b, 0))
	if !ok || n < 0 {
		return l, "llama.cpp prompt processing: bad n_tokens"
	}
	if !cut2(b, &i, ", progress = ") {
		return l, "llama.cpp prompt processing: no progress"
	}
	if _, i, _, ok = figure(b, i); !ok || !cut2(b, &i, ", t = ") {
		return l, "llama.cpp prompt processing: bad progress"
	}
	if _, i, _, ok = figure(b, i); !ok || !cut2(b, &i, " s /") {
		return l, "llama.cpp prompt processing: bad t"
	}
	l.Part, l.N = PartPromptProgress, float64(n)
	l.TPS, i, l.HasTPS, ok = figure(b, i)
	if !ok || !cut2(b, &i, " tokens per second") {
		return l, "llama.cpp prompt processing: bad tokens per second"
	}
	return l, tail(b, i)
}
