package enginelog_test

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sim/enginelog"
)

// capReq is one request of the captures: what the engine counted, enough to write its lines.
type capReq struct {
	slot, task, prompt, cached, gen int
	promptMs, evalMs                float64 // unrounded, as far as the printed rates tell
	graphs                          int64
	accepted, drafted, drafts       int64
	pos                             []int32
	totals                          *enginelog.SpecTotals // nil: no statistics line
	cum                             []int64               // the totals' #gen drafts, #gen tokens, #acc tokens
	cumPos                          []int32
}

// records is what the simulator hands the writer for r at -lv lv: launch, print_timing
// block, statistics, release, and at -lv 4 "all slots are idle".
func (r capReq) records(lv int) []enginelog.Record {
	base := enginelog.Record{Slot: r.slot, Task: r.task, Prompt: r.prompt, Cached: r.cached, Gen: r.gen,
		PromptMs: r.promptMs, EvalMs: r.evalMs, Graphs: r.graphs, Accepted: r.accepted,
		Drafted: r.drafted, Drafts: r.drafts}
	copy(base.Pos[:], r.pos)
	at := func(k enginelog.LineKind, sub uint8) enginelog.Record {
		rec := base
		rec.Kind, rec.Sub = k, sub
		return rec
	}
	out := []enginelog.Record{at(enginelog.LineSlot, 0)}
	for sub := range uint8(5) {
		out = append(out, at(enginelog.LineTiming, sub))
	}
	if r.drafted > 0 {
		out = append(out, at(enginelog.LineDraft, 0))
		if lv == 4 {
			out = append(out, at(enginelog.LinePositions, 0))
		}
	}
	if r.totals != nil {
		st := at(enginelog.LineStatistics, 0)
		st.Totals, st.Drafts, st.Drafted, st.Accepted = *r.totals, r.cum[0], r.cum[1], r.cum[2]
		st.Pos = [enginelog.MaxPositions]int32{}
		copy(st.Pos[:], r.cumPos)
		out = append(out, st)
	}
	out = append(out, at(enginelog.LineSlot, 1))
	if lv == 4 {
		out = append(out, at(enginelog.LineSlot, 2))
	}
	return out
}

var (
	listening = enginelog.Record{Kind: enginelog.LineStartup}
	idle      = enginelog.Record{Kind: enginelog.LineSlot, Sub: 2}
)

// captured holds, by capture file, the writer's configuration and the records of its lines.
// The ms are chosen within what the printed figures allow (109.154 prints 109.15 and 192.39
// tokens/s as the engine's own value did).
var captured = map[string]struct {
	w    enginelog.Writer
	recs []enginelog.Record
}{
	"draft-good-lv4.log": {enginelog.Writer{DraftLen: 8, Drafter: "draft-simple"}, join(
		[]enginelog.Record{listening, idle},
		capReq{0, 0, 21, 0, 128, 109.154, 948.214, 45, 79, 373, 48, []int32{32, 32, 15},
			&enginelog.SpecTotals{Begins: 1, DraftCalls: 48, AcceptCalls: 48, AccDrafts: 32, BeginMs: 0.016, DraftMs: 41.3, AcceptMs: 0.015},
			[]int64{48, 373, 79}, []int32{32, 32, 15}}.records(4),
		capReq{0, 50, 1, 20, 128, 14.1443, 1118.36, 99, 67, 453, 59, []int32{36, 15, 8, 5, 3},
			&enginelog.SpecTotals{Begins: 2, DraftCalls: 107, AcceptCalls: 107, AccDrafts: 68, BeginMs: 0.031, DraftMs: 92.757, AcceptMs: 0.032},
			[]int64{107, 826, 146}, []int32{68, 47, 23, 5, 3}}.records(4))},
	"draft-broken-lv4.log": {enginelog.Writer{DraftLen: 8, Drafter: "draft-simple"}, join(
		[]enginelog.Record{listening, idle},
		capReq{0, 0, 21, 0, 128, 114.733, 1948.92, 119, 0, 980, 126, nil,
			&enginelog.SpecTotals{Begins: 1, DraftCalls: 126, AcceptCalls: 126, BeginMs: 0.024, DraftMs: 99.859, AcceptMs: 0.011},
			[]int64{126, 980, 0}, nil}.records(4),
		capReq{0, 129, 1, 20, 128, 198.07, 1843.921, 238, 0, 980, 126, nil,
			&enginelog.SpecTotals{Begins: 2, DraftCalls: 252, AcceptCalls: 252, BeginMs: 0.040, DraftMs: 201.756, AcceptMs: 0.036},
			[]int64{252, 1960, 0}, nil}.records(4))},
	"draft-lv3.log": {enginelog.Writer{DraftLen: 8, Drafter: "draft-simple"}, join(
		[]enginelog.Record{listening},
		capReq{0, 0, 21, 0, 128, 260.32, 1832.88, 118, 1, 972, 125, nil, nil, nil, nil}.records(3),
		capReq{0, 128, 1, 20, 128, 363.74, 1210.21, 209, 30, 745, 97, nil, nil, nil, nil}.records(3))},
	"ngram-jsonl.log": {enginelog.Writer{DraftLen: 64, Drafter: "ngram-mod", JSONL: true}, join(
		[]enginelog.Record{listening},
		capReq{0, 0, 21, 0, 200, 109.09, 633.31, 40, 157, 157, 3, nil, nil, nil, nil}.records(3),
		capReq{0, 44, 1, 20, 200, 238.26, 731.49, 239, 0, 0, 0, nil, nil, nil, nil}.records(3),
		capReq{1, 245, 14, 0, 50, 33.0496, 473.10, 287, 0, 0, 0, nil, nil, nil, nil}.records(3))},
}

func join(parts ...[]enginelog.Record) []enginelog.Record {
	var out []enginelog.Record
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// readCaptures returns testdata's captured lines by capture file.
func readCaptures(t *testing.T) (map[string][]string, []string) {
	t.Helper()
	f, err := os.Open("testdata/llamacpp-0.7.0.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	var order []string
	file := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if name, ok := strings.CutPrefix(l, "# "); ok {
			if strings.HasSuffix(name, ".log") {
				file = name
				order = append(order, name)
			}
			continue
		}
		out[file] = append(out[file], l)
	}
	return out, order
}

// capturedTime reads a captured line's time since the start, µs, from its prefix or JSON.
func capturedTime(t *testing.T, line string) int64 {
	t.Helper()
	if strings.HasPrefix(line, "{") {
		var obj struct{ Time int64 }
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatal(err)
		}
		return obj.Time
	}
	f := strings.SplitN(strings.Fields(line)[0], ".", 4)
	var us int64
	for i, mul := range []int64{60_000_000, 1_000_000, 1000, 1} {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			t.Fatalf("prefix of %q: %v", line, err)
		}
		us += n * mul
	}
	return us
}

// TestLlamaCppCaptures writes the captured requests from their counts and compares the lines
// with the real engine's, byte for byte; the time of each comes from the captured line.
func TestLlamaCppCaptures(t *testing.T) {
	lines, order := readCaptures(t)
	if len(order) != len(captured) {
		t.Fatalf("testdata has %v, the test knows %d captures", order, len(captured))
	}
	started := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for _, name := range order {
		c, ok := captured[name]
		if !ok {
			t.Fatalf("no records for %s", name)
		}
		want := lines[name]
		if len(want) != len(c.recs) {
			t.Fatalf("%s: %d lines captured, %d records", name, len(want), len(c.recs))
		}
		w := c.w
		w.Engine, w.Started, w.Listen = enginelog.LlamaCpp, started, "http://127.0.0.1:18080"
		for i := range want {
			at := started.Add(time.Duration(capturedTime(t, want[i])) * time.Microsecond)
			if got := string(w.AppendLine(nil, at, &c.recs[i])); got != want[i] {
				t.Errorf("%s line %d:\n got %s\nwant %s", name, i+1, got, want[i])
			}
		}
	}
}
