package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sim/internal/printfre"
)

// llamaZoo is llama-server 0.7.0 in each configuration the simulator has: -lv 3 with idle gaps,
// a stuck drafter and a format change; -lv 4 with four slots kept busy; n-gram drafting under
// --log-jsonl; a drafter broken from the start; and bare lines with two slots.
func llamaZoo(f Format) Scenario {
	step := StepModel{A: 0.012, B: 1e-6}
	acc := Acceptance{DraftLen: 8, Phases: textPhases(5, 3.5, 2.2)}
	busy := func(n int) Workload {
		return Workload{Concurrency: n, PromptMin: 20, PromptMax: 4000, OutputMin: 50, OutputMax: 600}
	}
	sv := func(unit string, w Workload, o LlamaCppOptions) Service {
		return Service{Host: "gpu09", Unit: unit, Engine: LlamaCpp, Step: step, Workload: w, Acceptance: acc,
			LlamaCpp: o, StartupLines: true}
	}
	lv3 := sv("llama-lv3.service", busy(1), LlamaCppOptions{})
	lv3.Workload.ArrivalMean = 8 * time.Second
	lv3.Faults = []Fault{{Kind: StuckAtOne, Start: time.Minute, Duration: time.Minute},
		{Kind: FormatChange, Start: 3 * time.Minute, Duration: time.Minute}}
	ngram := sv("llama-ngram.service", busy(2), LlamaCppOptions{Verbosity: 4, NGram: true, JSONL: true})
	ngram.Acceptance = Acceptance{DraftLen: 64, Phases: textPhases(6, 3, 1.5)}
	ngram.Workload.ArrivalMean = 3 * time.Second
	broken := sv("llama-broken.service", busy(1), LlamaCppOptions{Verbosity: 4})
	broken.Faults = []Fault{{Kind: StuckAtOne}}
	bare := sv("llama-bare.service", busy(2), LlamaCppOptions{})
	bare.Prefix, bare.Acceptance.DraftLen = PrefixBare, 15
	return Scenario{
		Name: "llama-zoo", Seed: 26, Duration: 5 * time.Minute, Format: f, Noise: 0.2,
		Services: []Service{lv3, sv("llama-lv4.service", busy(4), LlamaCppOptions{Verbosity: 4}), ngram, broken, bare},
	}
}

// llamaMessage strips a llama.cpp line's prefix or JSON framing, checking it as it goes.
func llamaMessage(set *printfre.Set, line []byte) (string, error) {
	if line[0] == '{' {
		var obj struct {
			Type, Level, Msg string
			Time             *int64
		}
		if err := json.Unmarshal(line, &obj); err != nil || obj.Type != "log" || obj.Time == nil ||
			!strings.HasSuffix(obj.Msg, "\n") || !strings.Contains("info warn error debug", obj.Level) {
			return "", fmt.Errorf("not a --log-jsonl record: %s", line)
		}
		return strings.TrimSuffix(obj.Msg, "\n"), nil
	}
	s := string(line)
	if !strings.ContainsAny(s[:1], "0123456789") || strings.HasPrefix(s, "llama_kv") {
		return s, nil // a bare line
	}
	stamp, rest, _ := strings.Cut(s, " ")
	if _, ok := set.Prefix.Match(stamp + " "); !ok || len(rest) < 2 || !strings.ContainsRune("IWED", rune(rest[0])) || rest[1] != ' ' {
		return "", fmt.Errorf("no llama.cpp prefix: %q", s)
	}
	return rest[2:], nil
}

var reRateList = regexp.MustCompile(`^(\d\.\d{3}(, \d\.\d{3})*)?$`)

// checkLlama holds one line to llama-server 0.7.0's format strings, and its rate lists to
// "%.3f" joined by ", ".
func checkLlama(set *printfre.Set, line []byte) error {
	msg, err := llamaMessage(set, line)
	if err != nil {
		return err
	}
	if _, _, err := set.Match(msg); err != nil {
		return err
	}
	for _, key := range []string{"acc per pos = (", "#acc rate/pos = ("} {
		if _, list, ok := strings.Cut(msg, key); ok {
			list, _, _ = strings.Cut(list, ")")
			if !reRateList.MatchString(list) {
				return fmt.Errorf("bad rate list in %q", msg)
			}
		}
	}
	return nil
}

func loadLlamaFormats(t *testing.T) *printfre.Set {
	t.Helper()
	set, err := printfre.Load("enginelog/testdata/llamacpp-0.7.0.formats")
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestLlamaCppFormats: every line of a llama-server unit, the engine's and the noise, is one
// printf could print from llama-server 0.7.0's own format strings, widths included. The
// formats are checked against the captured lines, and, where the captures are at hand,
// against the strings of the binaries they were taken from, so neither side can drift.
func TestLlamaCppFormats(t *testing.T) {
	set := loadLlamaFormats(t)
	captured, err := os.ReadFile("enginelog/testdata/llamacpp-0.7.0.log")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(bytes.TrimSpace(captured), []byte("\n")) {
		if l[0] != '#' {
			if err := checkLlama(set, l); err != nil {
				t.Errorf("captured line: %v", err)
			}
		}
	}
	if strs, err := os.ReadFile("/work/captures/format-strings-0.7.0.txt"); err == nil {
		text, _ := os.ReadFile("enginelog/testdata/llamacpp-0.7.0.formats")
		verbatim, _, _ := strings.Cut(string(text), "# Derived")
		have := map[string]bool{}
		for _, l := range strings.Split(string(strs), "\n") {
			have[l] = true
		}
		for _, l := range strings.Split(verbatim, "\n") {
			l = strings.TrimPrefix(l, "prefix ")
			if l != "" && l[0] != '#' && !have[l] {
				t.Errorf("format %q is not among the binaries' strings", l)
			}
		}
	}
	// journalctl -o json: the units are named, and --log-jsonl lines travel escaped
	for _, f := range []Format{FormatJSON} {
		out, truths, _ := run(t, llamaZoo(f))
		es := split(t, f, out)
		renamed := map[int]bool{}
		for _, tr := range truths {
			renamed[tr.Record-1] = tr.Faults.Has(FormatChange) && tr.Line == LineDraft
		}
		n := 0
		for i, e := range es {
			if !strings.HasPrefix(e.unit, "llama") || renamed[i] {
				continue
			}
			n++
			if err := checkLlama(set, e.msg); err != nil {
				t.Fatalf("%v record %d: %v", f, i+1, err)
			}
		}
		if n < 1000 {
			t.Errorf("%v: only %d llama.cpp lines checked", f, n)
		}
	}
}

// llamaRequest is one request as its lines print it.
type llamaRequest struct {
	truth                             Truth
	prompt, gen, nTokens              int
	promptMs, evalMs, tps, totalMs    float64
	totalTokens                       int
	accepted, drafted, meanLen        float64
	drafted1                          bool
	positions                         []float64
	launched, printed, released, line int // record numbers
}

var (
	reLlamaSlot  = regexp.MustCompile(`^slot (launch_slot_|print_timing|     release): id +(\d+) \| task (\d+) \| (.*)$`)
	reLlamaRate  = regexp.MustCompile(`^(prompt eval|       eval) time = +([\d.]+) ms / +(\d+) tokens \( +[\d.]+ ms per token, +([\d.]+) tokens per second\)$`)
	reLlamaTotal = regexp.MustCompile(`^      total time = +([\d.]+) ms / +(\d+) tokens$`)
	reLlamaDraft = regexp.MustCompile(`^draft acceptance = ([\d.]+) \( *(\d+) accepted / *(\d+) generated\), mean len = +([\d.]+)$`)
	reLlamaStop  = regexp.MustCompile(`^stop processing: n_tokens = (\d+), truncated = 0$`)
	reLlamaStats = regexp.MustCompile(`#calls\(b,g,a\) = +(\d+) +(\d+) +(\d+), #gen drafts = +(\d+), #acc drafts = +(\d+), #gen tokens = +(\d+), #acc tokens = +(\d+)(?:, #mean acc len = ([\d.]+), #acc rate/pos = \(([^)]*)\))?`)
)

// llamaRequests reads the zoo's requests back from its lines, by unit, in release order.
func llamaRequests(t *testing.T, out []byte, truths []Truth) map[string][]*llamaRequest {
	t.Helper()
	lines := bytes.Split(out, []byte("\n"))
	open := map[string]*llamaRequest{}
	done := map[string][]*llamaRequest{}
	for _, tr := range truths {
		if tr.Series.Engine != LlamaCpp || tr.Line == LineStartup || tr.Line == LineStatistics {
			continue
		}
		b := string(body(t, LlamaCpp, lines[tr.Record-1]))
		m := reLlamaSlot.FindStringSubmatch(b)
		if m == nil {
			continue // all slots idle
		}
		key := tr.Series.Unit + "/" + m[2] + "/" + m[3]
		q := open[key]
		switch {
		case m[1] == "launch_slot_":
			if q != nil {
				t.Fatalf("record %d: %s launched twice", tr.Record, key)
			}
			open[key] = &llamaRequest{launched: tr.Record}
			continue
		case q == nil:
			t.Fatalf("record %d: %s prints before it launched: %q", tr.Record, key, b)
		}
		if q.printed == 0 {
			q.printed = tr.Record
		}
		q.line = tr.Record
		q.truth = tr
		rest := m[4]
		if r := reLlamaRate.FindStringSubmatch(rest); r != nil {
			ms, n, tps := num(t, []byte(r[2])), int(num(t, []byte(r[3]))), num(t, []byte(r[4]))
			if r[1] == "prompt eval" {
				q.promptMs, q.prompt = ms, n
			} else {
				q.evalMs, q.gen, q.tps = ms, n, tps
			}
		} else if r := reLlamaTotal.FindStringSubmatch(rest); r != nil {
			q.totalMs, q.totalTokens = num(t, []byte(r[1])), int(num(t, []byte(r[2])))
		} else if r := reLlamaDraft.FindStringSubmatch(rest); r != nil {
			q.accepted, q.drafted, q.meanLen, q.drafted1 = num(t, []byte(r[2])), num(t, []byte(r[3])), num(t, []byte(r[4])), true
		} else if list, ok := strings.CutPrefix(rest, "     acc per pos = ("); ok {
			for _, x := range strings.Split(strings.TrimSuffix(list, ")"), ", ") {
				q.positions = append(q.positions, num(t, []byte(x)))
			}
		} else if r := reLlamaStop.FindStringSubmatch(rest); r != nil {
			q.nTokens, q.released = int(num(t, []byte(r[1]))), tr.Record
			done[tr.Series.Unit] = append(done[tr.Series.Unit], q)
			delete(open, key)
		}
	}
	return done
}

// TestLlamaCppTruth checks each request's truth against what its lines print and the
// engine's arithmetic: verify steps G − 1 − accepted, commit (G − 1) / steps, step eval / steps,
// mean context n_tokens − (G − 1)/2, tok/s (G − 1) / eval, mean len 1 + accepted / drafting
// steps, acc per pos summing to accepted / drafting steps.
func TestLlamaCppTruth(t *testing.T) {
	s := llamaZoo(FormatRaw)
	out, truths, _ := run(t, s)
	reqs := llamaRequests(t, out, truths)
	draftLen := map[string]int{}
	for _, sv := range s.Services {
		draftLen[sv.Unit] = sv.Acceptance.DraftLen
	}
	withDraft, without, renamed := 0, 0, 0
	for unit, qs := range reqs {
		if len(qs) < 5 {
			t.Fatalf("%s: %d requests", unit, len(qs))
		}
		for _, q := range qs {
			tr := q.truth
			where := fmt.Sprintf("%s record %d", unit, q.released)
			if tr.Faults.Has(FormatChange) && !q.drafted1 {
				renamed++
				continue // its acceptance line is renamed: this test cannot read it
			}
			g, a := q.gen, int(q.accepted)
			if steps := g - 1 - a; steps != tr.Steps || steps < 1 {
				t.Fatalf("%s: G %d − 1 − accepted %d = %d steps, truth %d", where, g, a, steps, tr.Steps)
			}
			if c := float64(g-1) / float64(tr.Steps); math.Abs(c-tr.CommitLen) > 1e-12 {
				t.Fatalf("%s: commit %.4f, truth %.4f", where, c, tr.CommitLen)
			}
			if math.Abs(tr.StepSeconds*1000*float64(tr.Steps)-q.evalMs) > 0.0051 {
				t.Fatalf("%s: step %.5f s × %d steps is not the eval time %.2f ms", where, tr.StepSeconds, tr.Steps, q.evalMs)
			}
			if fixed(tr.TPS, 2) != fixed(q.tps, 2) || math.Abs(tr.TPS-float64(g-1)/(q.evalMs/1000)) > 0.01*tr.TPS {
				t.Fatalf("%s: tok/s %.2f printed, truth %.4f", where, q.tps, tr.TPS)
			}
			if mc := float64(q.nTokens) - float64(g-1)/2; mc != tr.MeanContext || tr.Context != int(math.Round(mc)) {
				t.Fatalf("%s: n_tokens %d − (G−1)/2 = %.1f, truth %.1f (%d)", where, q.nTokens, mc, tr.MeanContext, tr.Context)
			}
			if q.totalTokens != q.prompt+g || math.Abs(q.totalMs-q.promptMs-q.evalMs) > 0.0101 {
				t.Fatalf("%s: total time is not prompt + eval", where)
			}
			if tr.Running < 1 || tr.Drafts > tr.Steps {
				t.Fatalf("%s: running %d, %d drafting of %d steps", where, tr.Running, tr.Drafts, tr.Steps)
			}
			if !q.drafted1 {
				without++
				if tr.Drafts != 0 || a != 0 {
					t.Fatalf("%s: no acceptance line, yet %d drafts", where, tr.Drafts)
				}
				continue
			}
			withDraft++
			if fixed(q.meanLen, 2) != fixed(1+q.accepted/float64(tr.Drafts), 2) {
				t.Fatalf("%s: mean len %.2f is not 1 + %v / %d drafting steps", where, q.meanLen, q.accepted, tr.Drafts)
			}
			if q.drafted < q.accepted || q.drafted > float64(tr.Drafts*draftLen[unit]) {
				t.Fatalf("%s: %v drafted for %v accepted in %d drafts", where, q.drafted, q.accepted, tr.Drafts)
			}
			if unit == "llama-broken.service" && a != 0 {
				t.Fatalf("%s: a broken drafter accepted %d", where, a)
			}
			if q.positions != nil {
				sum := 0.0
				for i, p := range q.positions {
					sum += p
					if i > 0 && p > q.positions[i-1] {
						t.Fatalf("%s: acc per pos rises: %v", where, q.positions)
					}
				}
				if len(q.positions) != draftLen[unit] || math.Abs(sum*float64(tr.Drafts)-q.accepted) > 0.0005*float64(len(q.positions)*tr.Drafts) {
					t.Fatalf("%s: acc per pos %v × %d drafts does not sum to %v", where, q.positions, tr.Drafts, q.accepted)
				}
			}
		}
	}
	if withDraft < 50 || without < 3 || renamed == 0 {
		t.Errorf("%d requests with an acceptance line, %d without, %d renamed", withDraft, without, renamed)
	}
}

// TestLlamaCppStatistics: the drafter's statistics are totals since the start, so they never
// fall; a request's counts add to them; the mean and list divide by the accept calls (the
// drafts), the list ends at the longest acceptance ("()" for a broken drafter), and n-gram
// drafting calls its drafter at steps that find no draft.
func TestLlamaCppStatistics(t *testing.T) {
	out, truths, _ := run(t, llamaZoo(FormatRaw))
	lines := bytes.Split(out, []byte("\n"))
	type totals struct{ b, g, a, drafts, accDrafts, gen, acc float64 }
	last := map[string]totals{}
	seen := map[string]int{}
	for _, tr := range truths {
		if tr.Line != LineStatistics {
			continue
		}
		unit := tr.Series.Unit
		b := string(body(t, LlamaCpp, lines[tr.Record-1]))
		m := reLlamaStats.FindStringSubmatch(b)
		if m == nil {
			t.Fatalf("record %d: %q", tr.Record, b)
		}
		var x [7]float64
		for i := range x {
			x[i] = num(t, []byte(m[i+1]))
		}
		cur := totals{x[0], x[1], x[2], x[3], x[4], x[5], x[6]}
		p := last[unit]
		if cur.b < p.b || cur.g < p.g || cur.a < p.a || cur.gen < p.gen || cur.acc < p.acc || cur.a != cur.drafts ||
			cur.accDrafts > cur.drafts || cur.acc > cur.gen || cur.g < cur.a {
			t.Fatalf("%s record %d: totals %+v after %+v", unit, tr.Record, cur, p)
		}
		last[unit] = cur
		seen[unit]++
		if cur.a == 0 {
			if m[8] != "" {
				t.Fatalf("%s record %d: a mean before any draft was verified", unit, tr.Record)
			}
			continue
		}
		if m[8] != fixed(1+cur.acc/cur.a, 2) {
			t.Fatalf("%s record %d: #mean acc len %s, not 1 + %v / %v", unit, tr.Record, m[8], cur.acc, cur.a)
		}
		sum := 0.0
		var rates []string
		if m[9] != "" {
			rates = strings.Split(m[9], ", ")
		}
		for _, r := range rates {
			sum += num(t, []byte(r))
		}
		if len(rates) > 0 && num(t, []byte(rates[len(rates)-1])) == 0 && cur.a < 2000 {
			t.Fatalf("%s record %d: the list ends in a zero: %s", unit, tr.Record, m[9])
		}
		if rates == nil && cur.acc != 0 || math.Abs(sum*cur.a-cur.acc) > 0.0005*float64(len(rates))*cur.a {
			t.Fatalf("%s record %d: rate/pos (%s) × %v drafts is not %v accepted", unit, tr.Record, m[9], cur.a, cur.acc)
		}
	}
	if bk := last["llama-broken.service"]; bk.acc != 0 || bk.a == 0 {
		t.Errorf("broken drafter: %+v", bk)
	}
	if ng := last["llama-ngram.service"]; ng.g < 5*ng.a {
		t.Errorf("n-gram: %v drafter calls for %v drafts: most steps should find none", ng.g, ng.a)
	}
	for _, unit := range []string{"llama-lv4.service", "llama-ngram.service", "llama-broken.service"} {
		if seen[unit] < 5 {
			t.Errorf("%s: %d statistics lines", unit, seen[unit])
		}
	}
	for _, unit := range []string{"llama-lv3.service", "llama-bare.service"} {
		if seen[unit] != 0 {
			t.Errorf("%s at -lv 3 printed %d statistics lines", unit, seen[unit])
		}
	}
}

// TestLlamaCppSlots: requests of different slots interleave at request granularity. A slot
// serves one request at a time, a request's block runs from its first print_timing line to
// its release with no other request's line between, up to the -np slots run at once (the
// four-slot server fills them), and "all slots are idle" comes only when none is busy.
func TestLlamaCppSlots(t *testing.T) {
	s := llamaZoo(FormatRaw)
	out, truths, _ := run(t, s)
	reqs := llamaRequests(t, out, truths)
	lines := bytes.Split(out, []byte("\n"))
	slots := map[string]int{}
	for _, sv := range s.Services {
		slots[sv.Unit] = sv.Workload.Concurrency
	}
	byUnit := map[string][]Truth{}
	for _, tr := range truths {
		byUnit[tr.Series.Unit] = append(byUnit[tr.Series.Unit], tr)
	}
	for unit, qs := range reqs {
		// a request's lines, by record, among its unit's
		pos := map[int]int{}
		for i, tr := range byUnit[unit] {
			pos[tr.Record] = i
		}
		busy, most := 0, 0
		for _, tr := range byUnit[unit] {
			b := string(body(t, LlamaCpp, lines[tr.Record-1]))
			switch {
			case strings.Contains(b, "processing task"):
				busy++
			case strings.Contains(b, "stop processing"):
				busy--
			case strings.Contains(b, "all slots are idle") && busy != 0:
				t.Fatalf("%s record %d: all slots idle with %d busy", unit, tr.Record, busy)
			}
			if most = max(most, busy); busy > slots[unit] || busy < 0 {
				t.Fatalf("%s record %d: %d requests busy on %d slots", unit, tr.Record, busy, slots[unit])
			}
		}
		if slots[unit] == 4 && most != 4 {
			t.Errorf("%s: at most %d of 4 slots busy", unit, most)
		}
		for _, q := range qs {
			if q.line != q.released {
				t.Fatalf("%s: request's lines end at record %d, after its release %d", unit, q.line, q.released)
			}
			task := []byte(fmt.Sprintf("task %d |", taskOf(t, lines[q.released-1])))
			for r := q.printed; r < q.released; r++ {
				if _, mine := pos[r]; mine && !bytes.Contains(lines[r-1], task) && !bytes.Contains(lines[r-1], []byte("statistics ")) {
					t.Fatalf("%s record %d: another request's line inside a block: %q", unit, r, lines[r-1])
				}
			}
		}
	}
}

var reTask = regexp.MustCompile(`task (\d+) \|`)

func taskOf(t *testing.T, line []byte) int {
	m := reTask.FindSubmatch(line)
	if m == nil {
		t.Fatalf("no task in %q", line)
	}
	return int(num(t, m[1]))
}
