package sim

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// zoo is a scenario with every engine, line style and logger prefix, kept short so that every
// format test can afford it.
func zoo(f Format, noise float64) Scenario {
	busy := Workload{Concurrency: 3, PromptMin: 200, PromptMax: 6000, OutputMin: 100, OutputMax: 1500}
	acc := Acceptance{DraftLen: 4, Phases: textPhases(4, 3, 2.2)}
	long := Acceptance{DraftLen: 15, Phases: textPhases(7.5, 4.5, 2.9)}
	step := StepModel{A: 0.03, B: 2e-6}
	sg := func(unit string, st Style, p Prefix, ranks ...string) Service {
		return Service{Host: "gpu07", Unit: unit, Engine: SGLang, Style: st, Prefix: p, Ranks: ranks,
			Step: step, Workload: busy, Acceptance: acc}
	}
	vl := func(unit string, st Style, p Prefix, ranks ...string) Service {
		return Service{Host: "gpu08", Unit: unit, Engine: VLLM, Style: st, Prefix: p, Ranks: ranks,
			Step: StepModel{A: 0.02, B: 3e-7}, Workload: busy, Acceptance: acc}
	}
	ddtree := sg("ddtree.service", SGLangCurrent, PrefixEngine, "TP0", "DP1 TP1 EP1")
	ddtree.Acceptance = long
	ddtree.CustomStats, ddtree.ProfileLines, ddtree.StartupLines, ddtree.PrefillLines = true, true, true, true
	old := sg("old.service", SGLangOld, PrefixTimeOnly, "TP0")
	old.KVTokens, old.PrefillLines = 12000, true // full pool: retractions
	plain := sg("plain.service", StyleDefault, PrefixEngine, "")
	plain.Acceptance = Acceptance{} // no speculative decoding
	plain.Workload.ArrivalMean = 40 * time.Second
	idle := vl("vllm2.service", VLLMSpecGen2, PrefixEngine, "")
	idle.Workload.ArrivalMean = 30 * time.Second
	color := vl("vllm3.service", VLLMSpecGen3, PrefixEngine, "Engine 000", "Engine 001")
	color.Color = true
	return Scenario{
		Name: "zoo", Seed: 42, Start: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC),
		Duration: 10 * time.Minute, Format: f, Noise: noise,
		Services: []Service{
			ddtree, old, plain,
			sg("iter.service", SGLangIteration, PrefixMillis, "DP0 TP0 PP0"),
			sg("swa.service", SGLangHybridSWA, PrefixPython, "TP0"),
			sg("disagg.service", SGLangDisagg, PrefixBare, "TP0"),
			vl("vllm1.service", VLLMSpecGen1, PrefixBare, "Engine 000"),
			idle,
			color,
			vl("vllm0.service", VLLMV0, PrefixEngine, ""),
			{Host: "gpu09", Unit: "llama.service", Engine: LlamaCpp, Step: StepModel{A: 0.01, B: 1e-6},
				Workload: Workload{Concurrency: 2, OutputMin: 1000, OutputMax: 3000}, Acceptance: long,
				StartupLines: true, LlamaCpp: LlamaCppOptions{Verbosity: 4}},
			{Host: "gpu09", Unit: "llama-ngram.service", Engine: LlamaCpp, Step: StepModel{A: 0.01, B: 1e-6},
				Workload:   Workload{ArrivalMean: 20 * time.Second, OutputMin: 100, OutputMax: 800},
				Acceptance: Acceptance{DraftLen: 64, Phases: textPhases(6, 3, 1.5)},
				LlamaCpp:   LlamaCppOptions{JSONL: true, NGram: true}},
			{Host: "gpu09", Unit: "kv.service", Engine: Generic, Step: step, Workload: busy, Acceptance: long},
			{Host: "gpu09", Unit: "kvspace.service", Engine: Generic, Style: GenericSpace, Prefix: PrefixBare,
				Step: step, Workload: busy, Acceptance: long},
		},
	}
}

// run generates s and returns the output and the truth records.
func run(t testing.TB, s Scenario) ([]byte, []Truth, Summary) {
	t.Helper()
	var buf bytes.Buffer
	var truths []Truth
	sum, err := Generate(s, &buf, func(tr Truth) { truths = append(truths, tr) })
	if err != nil {
		t.Fatalf("Generate(%s): %v", s.Name, err)
	}
	return buf.Bytes(), truths, sum
}

// entry is one record as a reader recovers it from any format.
type entry struct {
	msg        []byte
	host, unit string
	realtime   int64 // µs; 0 when the format has none
}

// Transport shapes, from FORMATS.md and journalctl(1), written independently of the generator.
var (
	reShort        = regexp.MustCompile(`^[A-Z][a-z]{2} \d{2} \d{2}:\d{2}:\d{2} (\S+) ([\w.-]+)(\[\d+\])?: (.*)$`)
	reShortPrecise = regexp.MustCompile(`^[A-Z][a-z]{2} \d{2} \d{2}:\d{2}:\d{2}\.\d{6} (\S+) ([\w.-]+)(\[\d+\])?: (.*)$`)
	reShortISO     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4} (\S+) ([\w.-]+)(\[\d+\])?: (.*)$`)
	reDocker       = regexp.MustCompile(`^([\w-]+)-1 +\| (.*)$`)
	reDockerTS     = regexp.MustCompile(`^([\w-]+)-1 +\| \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z (.*)$`)
)

// split recovers the records of out, failing the test on any record that is not in f's shape.
func split(t testing.TB, f Format, out []byte) []entry {
	t.Helper()
	if f == FormatExport {
		return splitExport(t, out)
	}
	re := map[Format]*regexp.Regexp{FormatShort: reShort, FormatShortPrecise: reShortPrecise,
		FormatShortISO: reShortISO, FormatDocker: reDocker, FormatDockerTimestamps: reDockerTS}[f]
	var es []entry
	for i, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		var e entry
		var m [][]byte
		switch f {
		case FormatRaw, FormatCat:
			e.msg = line
		case FormatShort, FormatShortPrecise, FormatShortISO:
			if m = re.FindSubmatch(line); m != nil {
				e.host, e.msg = string(m[1]), m[4]
			}
		case FormatDocker, FormatDockerTimestamps:
			if m = re.FindSubmatch(line); m != nil {
				e.unit, e.msg = string(m[1])+".service", m[2]
			}
		case FormatJSON:
			e = jsonEntry(t, line)
		}
		if e.msg == nil {
			t.Fatalf("%v record %d does not have the format's shape: %q", f, i+1, line)
		}
		es = append(es, e)
	}
	return es
}

func jsonEntry(t testing.TB, line []byte) entry {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		t.Fatalf("json record %q: %v", line, err)
	}
	str := func(k string) string {
		var s string
		if raw, ok := obj[k]; ok {
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatalf("json field %s is not a string: %s", k, raw)
			}
		}
		return s
	}
	e := entry{host: str("_HOSTNAME"), unit: str("_SYSTEMD_UNIT")}
	e.realtime, _ = strconv.ParseInt(str("__REALTIME_TIMESTAMP"), 10, 64)
	if str("__CURSOR") == "" || e.realtime == 0 || str("SYSLOG_IDENTIFIER") == "" {
		t.Fatalf("json record lacks cursor, timestamp or identifier: %s", line)
	}
	raw := obj["MESSAGE"]
	if len(raw) > 0 && raw[0] == '[' {
		var nums []int
		if err := json.Unmarshal(raw, &nums); err != nil {
			t.Fatalf("json MESSAGE array: %v", err)
		}
		for _, n := range nums {
			e.msg = append(e.msg, byte(n))
		}
		return e
	}
	e.msg = []byte(str("MESSAGE"))
	if bytes.ContainsRune(e.msg, 0x1b) {
		t.Fatalf("json MESSAGE with ANSI escapes written as a string: %s", raw)
	}
	return e
}

// splitExport reads the journal export format: text fields KEY=value, binary fields KEY, newline,
// 64-bit little-endian length, data, newline; a blank line ends an entry.
func splitExport(t testing.TB, out []byte) []entry {
	t.Helper()
	var es []entry
	e := entry{}
	cursor := false
	for len(out) > 0 {
		if out[0] == '\n' {
			if e.msg == nil || !cursor || e.realtime == 0 {
				t.Fatalf("export entry %d lacks MESSAGE, __CURSOR or timestamp", len(es)+1)
			}
			es = append(es, e)
			e, cursor, out = entry{}, false, out[1:]
			continue
		}
		nl := bytes.IndexByte(out, '\n')
		if nl < 0 {
			t.Fatalf("export: unterminated field %q", out)
		}
		line := out[:nl]
		var key string
		var val []byte
		if eq := bytes.IndexByte(line, '='); eq >= 0 {
			key, val, out = string(line[:eq]), line[eq+1:], out[nl+1:]
		} else {
			key = string(line)
			n := binary.LittleEndian.Uint64(out[nl+1:])
			val = out[nl+9 : nl+9+int(n)]
			if out[nl+9+int(n)] != '\n' {
				t.Fatalf("export: binary field %s not followed by a newline", key)
			}
			out = out[nl+10+int(n):]
		}
		switch key {
		case "MESSAGE":
			e.msg = append([]byte{}, val...)
		case "_HOSTNAME":
			e.host = string(val)
		case "_SYSTEMD_UNIT":
			e.unit = string(val)
		case "__CURSOR":
			cursor = true
		case "__REALTIME_TIMESTAMP":
			e.realtime, _ = strconv.ParseInt(string(val), 10, 64)
		}
	}
	return es
}
