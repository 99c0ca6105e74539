package parse

import (
	"bytes"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/sample"
)

// Hostile input: lines crafted to make a parser slow, to allocate, or to panic. Every shape goes
// through the public entry point, Parser.Parse, twice: with the default options and with user
// rules and aliases (the regexp path runs on every line the built-in parsers ignore). The tests
// check the result kind and that no shape allocates; the benchmarks measure ns/byte at 1 KiB to
// 1 MiB, which stays flat when parsing is linear. Wall time is never asserted in a test.

const (
	goodDecode = "Decode batch, #running-req: 1, #token: 5553, token usage: 0.01, accept len: 2.90, cuda graph: True, gen throughput (token/s): 31.87, #queue-req: 0"
	goodEngine = "Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 96.4 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 7.3%"
	goodSpec   = "SpecDecoding metrics: Mean acceptance length: 2.37, Accepted: 411 tokens, Drafted: 900 tokens"
)

// hostileGarbage is what follows a record's marker in the "garbage" shapes: NUL, invalid UTF-8,
// every separator the parsers split on, brackets, a cut ANSI code and digits.
const hostileGarbage = "\x00\xff\xfe:#,=[](\xc3\x28 \x1b[9;\xef\xbf\xbd[ 12: x=, "

// shape builds a hostile line of about n bytes: head, then unit repeated, then tail.
type shape struct {
	name       string
	head, unit string
	tail       string
	// want is the result with the default options, then with rules and aliases.
	want [2]sample.Result
}

func (sh *shape) line(n int) []byte {
	k := max(1, (n-len(sh.head)-len(sh.tail))/len(sh.unit))
	b := make([]byte, 0, len(sh.head)+k*len(sh.unit)+len(sh.tail))
	b = append(b, sh.head...)
	for range k {
		b = append(b, sh.unit...)
	}
	return append(b, sh.tail...)
}

var (
	ign = [2]sample.Result{sample.Ignored, sample.Ignored}
	mal = [2]sample.Result{sample.Malformed, sample.Malformed}
	mat = [2]sample.Result{sample.Matched, sample.Matched}
)

var hostileShapes = []shape{
	// Long runs of digits, bare and in every kind of numeric field.
	{"digits-bare", "", "9", "", ign},
	{"digits-decode-int", "Decode batch, #running-req: ", "9", ", gen throughput (token/s): 1.0, #queue-req: 0", mal},
	{"digits-decode-fraction", "Decode batch, #running-req: 1, gen throughput (token/s): 1.", "9", ", #queue-req: 0", mal},
	{"digits-iteration-counter", "Decode batch [", "9", "], #running-req: 1, gen throughput (token/s): 1.0, #queue-req: 0", mat},
	{"digits-stamp-fraction", "[2026-11-20 09:00:01.", "9", " TP0] " + goodDecode, mat},
	{"digits-rank-tag", "[2026-11-20 09:00:01 TP", "9", "] " + goodDecode, mat},
	{"digits-prefill", "Prefill batch, #new-seq: ", "9", ", #new-token: 1", mal},
	{"digits-prefill-2024", "new fill batch. #seq: 2. #new_token: ", "9", ". #remaining_req: 1", mal},
	{"digits-retract", "KV cache pool is full. Retract requests. #retracted_reqs: ", "9", "", mal},
	{"digits-vllm-engine", "Avg prompt throughput: ", "9", " tokens/s, Avg generation throughput: 1.0 tokens/s, Running: 1 reqs, GPU KV cache usage: 1%", mal},
	{"digits-vllm-spec", "SpecDecoding metrics: Accepted: ", "9", " tokens, Drafted: 2 tokens", mal},
	{"digits-per-position", "SpecDecoding metrics: Accepted: 1 tokens, Drafted: 2 tokens, Per-position acceptance rate: 0.", "9", "", mal},
	{"digits-per-position-list", "SpecDecoding metrics: Accepted: 1 tokens, Drafted: 2 tokens, Per-position acceptance rate: 0.5", ", 0.5", "", mal},
	{"digits-vllm-v0", "Speculative metrics: Number of speculative tokens: ", "9", ", Number of accepted tokens: 1, Number of draft tokens: 2, Number of emitted tokens: 3.", mal},
	{"digits-llamacpp", "draft acceptance rate = 0.5 (  ", "9", " accepted /  10 generated)", mal},
	{"digits-key-value", "avg_commit_len=", "9", "", mal},
	{"digits-rule", "spec stats: acc=", "9", " t=1ms", [2]sample.Result{sample.Ignored, sample.Malformed}},
	{"digits-rule-no-literal", "", "9", " tokens in context", [2]sample.Result{sample.Ignored, sample.Malformed}},

	// Thousands of key=value and key: value pairs.
	{"kv-pairs-primary", "avg_commit_len=2.9 ", "k=1 ", "", mat},
	{"kv-pairs-noise", "", "a=b ", "", ign},
	{"kv-pairs-duplicate", "avg_commit_len=2.9 ", "bs=1 ", "", mal},
	{"kv-pairs-alias", "acc_len=2.5 ", "iter_ms=1 ", "", [2]sample.Result{sample.Ignored, sample.Malformed}},
	{"kv-pairs-comma", "avg_commit_len=2.9", ", k=1", "", mat},
	{"kv-decode-fields", goodDecode, ", x: 1", "", mat},
	{"kv-engine-fields", goodEngine, ", Foo: 1 reqs", "", mat},
	{"kv-spec-fields", goodSpec, ", X: 1", "", mat},
	{"kv-colon-pairs-no-marker", "", "k: 1, ", "", ign},
	{"kv-drafter-init", "Initialized DFLASH draft runner. ", "x=1, ", "", mat},

	// Very long keys and values.
	{"long-kv-key", "avg_commit_len=2.9 ", "k", "=1", mat},
	{"long-kv-key-first", "", "k", "=1 avg_commit_len=2.9", mat},
	{"long-kv-value", "avg_commit_len=", "x", "", mal},
	{"long-decode-key", "Decode batch, ", "k", ": 1", mal},
	{"long-decode-value", "Decode batch, #running-req: ", "x", "", mal},
	{"long-unit", "Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 1.0 ", "x", ", Running: 1 reqs, GPU KV cache usage: 1%", mal},
	{"long-host", "Nov 20 09:00:01 ", "h", " python3[1]: " + goodDecode, mat},
	{"long-proc-tag", "(", "(", "pid=1) INFO 11-20 09:00:01 [loggers.py:271] " + goodEngine, mat},
	{"long-compose-service", "", "s", "  | " + goodDecode, mat},

	// Floods of one separator.
	{"sep-hash", "", "#", "", ign},
	{"sep-colon", "", ":", "", ign},
	{"sep-comma", "", ",", "", ign},
	{"sep-equals", "", "=", "", ign},
	{"sep-colon-space", "", ": ", "", ign},
	{"sep-comma-space", "", ", ", "", ign},
	{"sep-req-colon", "", "#running-req:", "", ign},
	{"sep-decode-colon", "Decode batch,", ":", "", mal},
	{"sep-decode-comma", "Decode batch, ", ", ", "", mal},
	{"sep-spec-comma", "SpecDecoding metrics:", ",", "", mal},
	{"sep-kv-equals", "avg_commit_len=2.9 ", "=", "", mat},

	// Brackets, nested and unbalanced, and escape codes.
	{"brackets-open", "", "[", "", ign},
	{"brackets-close", "", "]", "", ign},
	{"brackets-nested", "", "[(", "", ign},
	{"brackets-before-marker", "", "[", goodDecode, mat},
	{"brackets-counter", "Decode batch [", "[", "], #running-req: 1, gen throughput (token/s): 1.0, #queue-req: 0", mal},
	{"brackets-value", "SpecDecoding metrics: Accepted: ", "[", " tokens, Drafted: 2 tokens", mal},
	{"ansi-codes", "", "\x1b[1;36m", goodDecode, mat},
	{"ansi-params", "\x1b[", "1;", "m" + goodDecode, mat},
	{"ansi-replacement", "", "\xef\xbf\xbd[", " " + goodDecode, mat}, // "�[D" would be a CSI eating the D
	{"ansi-lone-escapes", goodDecode, "\x1b", "", mat},

	// A record's marker, then garbage.
	{"garbage-decode", "[2026-11-20 09:00:01 TP0] Decode batch, ", hostileGarbage, "", mal},
	{"garbage-prefill", "Prefill batch, ", hostileGarbage, "", mal},
	{"garbage-prefill-2024", "new fill batch. ", hostileGarbage, "", ign}, // not a lead word: see leadWord
	{"garbage-retract", "KV cache pool is full. #retracted_reqs: ", hostileGarbage, "", mal},
	{"garbage-vllm-engine", "INFO 11-20 09:00:01 [loggers.py:271] Avg prompt throughput: ", hostileGarbage, "", mal},
	{"garbage-vllm-spec", "SpecDecoding metrics: ", hostileGarbage, "", mal},
	{"garbage-vllm-v0", "Speculative metrics: ", hostileGarbage, "", mal},
	{"garbage-llamacpp", "draft acceptance rate = ", hostileGarbage, "", mal},
	{"garbage-key-value", "avg_commit_len=2.9 ", hostileGarbage, "", mat},
	{"garbage-drafter-init", "Initialized DDTree worker. ", hostileGarbage, "", mat},
	{"garbage-rule", "spec stats: acc=", hostileGarbage, "", ign},
	{"garbage-bare", "", hostileGarbage, "", ign},

	// NUL bytes and invalid UTF-8.
	{"nul-bare", "", "\x00", "", ign},
	{"nul-in-value", "Decode batch, #running-req: 1", "\x00", ", gen throughput (token/s): 1.0, #queue-req: 0", mal},
	{"nul-before-marker", "", "\x00", goodDecode, mat},
	{"utf8-bare", "", "\xff\xfe\xc3\x28", "", ign},
	{"utf8-in-value", "Decode batch, #running-req: 1", "\xc3\x28", ", gen throughput (token/s): 1.0, #queue-req: 0", mal},
	{"utf8-before-marker", "", "\xc3\x28", " " + goodDecode, mat},
	{"utf8-key-value", "avg_commit_len=2.9 ", "\xff\xc3\x28", "", mat},
}

// hostileParsers are the two configurations every shape goes through: the defaults, and user
// rules (one with a literal, one without, which runs its regexp on every ignored line) with
// aliases.
func hostileParsers(tb testing.TB) [2]*Parser {
	tb.Helper()
	r1, err := NewRule("fork", `spec stats: acc=(?P<commit_len>[0-9.]+) t=(?P<step_seconds>[0-9.]+)ms`, "", sample.KindDecode,
		map[string]float64{"step_seconds": 0.001})
	if err != nil {
		tb.Fatal(err)
	}
	r2, err := NewRule("prose", `(?P<context>[0-9]+) tokens in context`, "", sample.KindDecode, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if r2.Contains != "" {
		tb.Fatalf("rule prose has literal %q; it must run its regexp on every line", r2.Contains)
	}
	return [2]*Parser{
		NewParser(Options{}),
		NewParser(Options{
			Rules:   []Rule{r1, r2},
			Aliases: map[string]Alias{"acc_len": {Field: sample.Commit, Scale: 1}, "iter_ms": {Field: sample.StepSeconds, Scale: 0.001}},
		}),
	}
}

var parserNames = [2]string{"default", "rules"}

// raceEnabled: under the race detector sync.Pool drops a quarter of what it is given, so the
// regexp package's pooled matchers are reallocated now and then; only the rules path uses them.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// TestHostileLines: every shape, from 1 KiB to the 1 MiB that MaxLine lets through, gives its
// expected result kind through both parsers, without a panic and without an allocation.
// Matched records keep their figures sane: a hostile line never becomes a plausible number it
// did not carry. Allocations are counted over many lines at 1 KiB and 16 KiB (past 16 KiB the
// rules' regexps leave the backtracker for the NFA), because AllocsPerRun also counts the rare
// allocation of a background goroutine; no path of the parser allocates by line length.
func TestHostileLines(t *testing.T) {
	ps := hostileParsers(t)
	race := raceEnabled()
	for _, size := range []int{1 << 10, 16 << 10, MaxLine} {
		for i := range hostileShapes {
			sh := &hostileShapes[i]
			line := sh.line(size)
			if len(line) > MaxLine {
				t.Fatalf("%s: %d bytes, past MaxLine: the shape's tail would be cut", sh.name, len(line))
			}
			for pi, p := range ps {
				if pi == 1 && race && size == MaxLine {
					continue // the regexp NFA over 1 MiB, instrumented: minutes; the plain run covers it
				}
				name := fmt.Sprintf("%s/%s/%s", sh.name, parserNames[pi], sizeName(size))
				var s Record
				r := p.Parse(line, &s)
				if r != sh.want[pi] {
					t.Errorf("%s: %v (%s), want %v", name, r, s.Why, sh.want[pi])
					continue
				}
				if (r == sample.Malformed) != (s.Why != "") {
					t.Errorf("%s: %v with reason %q", name, r, s.Why)
				}
				if r == sample.Matched {
					checkSane(t, name, &s)
				}
				if size == MaxLine || pi == 1 && race {
					continue // sync.Pool drops a quarter of the regexp's matchers under -race
				}
				runs := 100
				if size > 1<<10 {
					runs = 10
				}
				allocs := testing.AllocsPerRun(runs, func() { p.Parse(line, &s) })
				// A rule that matches returns its submatch indices in a fresh slice: the
				// regexp package has no form that reuses one.
				limit := 0.0
				if pi == 1 && ruleMatches(p, line) {
					limit = 1
				}
				if allocs > limit {
					t.Errorf("%s: %.1f allocations per line, want ≤ %v", name, allocs, limit)
				}
			}
		}
	}
}

// ruleMatches reports whether one of p's rules matches line (as Parse would see it).
func ruleMatches(p *Parser, line []byte) bool {
	for i := range p.opts.Rules {
		if p.opts.Rules[i].re.Match(line) {
			return true
		}
	}
	return false
}

func checkSane(t *testing.T, name string, s *Record) {
	t.Helper()
	for f := sample.Field(0); f < numFields; f++ {
		if v, ok := s.Get(f); ok && (v < 0 || v != v || v > 1e15) {
			t.Errorf("%s: %v = %v", name, f, v)
		}
	}
	if c, ok := s.Get(sample.Commit); ok && (c < 1 || c > 64) {
		t.Errorf("%s: commit %v", name, c)
	}
	if s.NPos > sample.MaxPerPosition {
		t.Errorf("%s: %d per-position values", name, s.NPos)
	}
}

// TestHostileLeadWordsWithEquals: a record's lead words followed by fields that do not read is
// malformed whether or not the line holds a '=' (before, a '=' anywhere sent it to the
// key=value reader, which found no statistics and called it noise: format_drift never saw a
// renamed record that used '='). Key=value statistics behind a lead word still read.
func TestHostileLeadWordsWithEquals(t *testing.T) {
	for _, c := range []struct {
		line string
		want sample.Result
	}{
		{"[2026-11-20 09:00:01 TP0] Decode batch, running-req=1, tokens=5553, gen-throughput=31.87", sample.Malformed},
		{"[2026-11-20 09:00:01 TP0] Decode batch, running-req 1, tokens 5553, gen-throughput 31.87", sample.Malformed},
		{"Prefill batch, new-seq=1, new-token=812", sample.Malformed},
		{"[2026-11-20 09:00:01 TP0] Decode batch avg_commit_len=2.9 step_ms=40", sample.Matched},
		{"Decoded batches=3 in 2 s", sample.Ignored},
	} {
		var s Record
		if r := NewParser(Options{}).Parse([]byte(c.line), &s); r != c.want {
			t.Errorf("%q: %v (%s), want %v", c.line, r, s.Why, c.want)
		}
	}
}

// TestHostileLinePastMaxLine: a line longer than MaxLine is read up to MaxLine only, so a
// record whose required tail lies past the cap is malformed and a flood of noise stays noise.
func TestHostileLinePastMaxLine(t *testing.T) {
	ps := hostileParsers(t)
	for _, c := range []struct {
		line string
		want sample.Result
	}{
		{goodDecode + strings.Repeat(", x: 1", MaxLine/6) + ", #queue-req: 0, #queue-req: 0", sample.Matched}, // the duplicate is past the cap
		{"Decode batch, #running-req: 1, gen throughput (token/s): 1.0" + strings.Repeat(", x: 1", MaxLine/6) + ", #queue-req: 0", sample.Malformed},
		{strings.Repeat("#", 4*MaxLine), sample.Ignored},
		{strings.Repeat("9", 4*MaxLine), sample.Ignored},
		{strings.Repeat("a=b ", MaxLine), sample.Ignored},
	} {
		for pi, p := range ps {
			var s Record
			if r := p.Parse([]byte(c.line), &s); r != c.want {
				t.Errorf("%s: %.50q… (%d bytes): %v (%s), want %v", parserNames[pi], c.line, len(c.line), r, s.Why, c.want)
			}
		}
	}
}

// TestHostileRuleRegexpIsLinear: a rule is a Go regexp, and Go's regexp package (RE2) runs in
// time linear in the input, with no backtracking blow-up, whatever the expression. Patterns that
// are catastrophic for backtracking engines compile and run here; the benchmarks measure the
// per-byte cost.
func TestHostileRuleRegexpIsLinear(t *testing.T) {
	for _, expr := range []string{
		`^(?P<commit_len>(a+)+)b`,
		`(?P<context>(x|x)+)y`,
		`(?P<running>[0-9]*)*z`,
	} {
		r, err := NewRule("redos", expr, "", sample.KindDecode, nil)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		p := NewParser(Options{Rules: []Rule{r}})
		var s Record
		line := bytes.Repeat([]byte("a"), 1<<16) // "aaaa…" with no final b: exponential for a backtracker
		if got := p.Parse(line, &s); got != sample.Ignored {
			t.Errorf("%s: %v", expr, got)
		}
	}
}

// BenchmarkHostile measures every shape with the default options at 1 KiB to 1 MiB; ns/byte
// stays flat across sizes when parsing is linear.
func BenchmarkHostile(b *testing.B) { benchHostile(b, 0) }

// BenchmarkHostileRules measures the same shapes with user rules and aliases.
func BenchmarkHostileRules(b *testing.B) { benchHostile(b, 1) }

func benchHostile(b *testing.B, pi int) {
	p := hostileParsers(b)[pi]
	for i := range hostileShapes {
		sh := &hostileShapes[i]
		for _, size := range []int{1 << 10, 16 << 10, 256 << 10, 1 << 20} {
			line := sh.line(size)
			b.Run(fmt.Sprintf("%s/%s", sh.name, sizeName(size)), func(b *testing.B) {
				var s Record
				b.ReportAllocs()
				b.SetBytes(int64(len(line)))
				for b.Loop() {
					p.Parse(line, &s)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(line)), "ns/byte")
			})
		}
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dKiB", n>>10)
}
