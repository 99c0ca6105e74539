package ingest

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"
)

// The real capture (llama-server 0.7.0 --log-jsonl): every log record unwraps to its message
// and its µs since the start; the memory breakdown records are not log lines.
func TestLlamaJSONLCapture(t *testing.T) {
	data, err := os.ReadFile("testdata/llamacpp-ngram.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var u LlamaJSONL
	var logs, other int
	last := int64(-1)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		text, us, r := u.Unwrap(sc.Bytes())
		switch r {
		case Unwrapped:
			logs++
			if us < last || bytes.HasSuffix(text, []byte("\n")) || bytes.HasPrefix(text, []byte("{")) {
				t.Errorf("%q: %q at %d µs (previous %d)", sc.Text(), text, us, last)
			}
			last = us
		case NotJSONL:
			other++
			if !strings.Contains(sc.Text(), `"fit_memory_breakdown"`) {
				t.Errorf("%q: not unwrapped", sc.Text())
			}
		default:
			t.Errorf("%q: %v", sc.Text(), r)
		}
	}
	if logs != 36 || other != 2 || last != 5435523 {
		t.Errorf("%d log records, %d others, last at %d µs", logs, other, last)
	}
	text, us, _ := u.Unwrap([]byte(`{"type":"log","time":616319,"level":"info","msg":"srv  llama_server: listening on http://127.0.0.1:18080\n"}`))
	if string(text) != "srv  llama_server: listening on http://127.0.0.1:18080" || us != 616319 {
		t.Errorf("%q at %d", text, us)
	}
}

func TestLlamaJSONLShapes(t *testing.T) {
	for _, c := range []struct {
		line, text string
		us         int64
		want       JSONLResult
	}{
		{`{"type":"log","time":5,"level":"warn","msg":"a \"quoted\" \u00e9 tab\there\r\n"}`, "a \"quoted\" é tab\there", 5, Unwrapped},
		{`{"msg":"keys in any order\n","level":"info","time":7,"type":"log"}`, "keys in any order", 7, Unwrapped},
		{`{"type":"log","msg":"no time"}`, "no time", -1, Unwrapped},
		{`{"type":"log","time":1,"msg":"first","msg":"second"}`, "first", 1, Unwrapped},
		{`{"type":"log","time":1,"msg":"two\nlines\n"}`, "two\nlines", 1, Unwrapped},
		{`  {"type":"log","time":1,"msg":"x"}`, `  {"type":"log","time":1,"msg":"x"}`, -1, NotJSONL}, // not at the start
		{`{"type":"fit_memory_breakdown","data":{"unit":"MiB"}}`, "", -1, NotJSONL},
		{`{"log":"docker\n","stream":"stderr","time":"2026-11-20T09:00:00Z"}`, "", -1, NotJSONL},
		{`{"level":"info","message":"someone else's JSON"}`, "", -1, NotJSONL},
		{`{not json`, "", -1, NotJSONL},
		{`plain text`, "plain text", -1, NotJSONL},
		// Damaged log records: counted, never read.
		{`{"type":"log","time":5,"level":"info","msg":"slot print_timing: id  0 | task 0 | draft acc`, "", -1, DamagedJSONL},
		{`{"type":"log","time":5,"msg":42}`, "", -1, DamagedJSONL},
		{`{"type":"log","time":5}`, "", -1, DamagedJSONL},
		{`{"type":"log","time":-5,"msg":"x"}`, "", -1, DamagedJSONL},
		{`{"type":"log","time":5.5,"msg":"x"}`, "", -1, DamagedJSONL},
		{`{"type":"log","time":"5","msg":"x"}`, "", -1, DamagedJSONL},
		{`{"type":"log","time":1234567890123456,"msg":"x"}`, "", -1, DamagedJSONL}, // 16 digits
		{`{"type":"log","time":5,"msg":"x"} trailing`, "", -1, DamagedJSONL},
		{`{"type":"log","time":5,"msg":"bad \q escape"}`, "", -1, DamagedJSONL},
	} {
		var u LlamaJSONL
		text, us, r := u.Unwrap([]byte(c.line))
		if r != c.want || us != c.us || (c.text != "" && string(text) != c.text) {
			t.Errorf("%s: %v %q at %d; want %v %q at %d", c.line, r, text, us, c.want, c.text, c.us)
		}
	}
}

// Unwrapping allocates nothing once its scratch has grown (the pipeline runs it per entry).
func TestLlamaJSONLAllocs(t *testing.T) {
	var u LlamaJSONL
	line := []byte(`{"type":"log","time":3750843,"level":"info","msg":"slot print_timing: id  0 | task 0 | draft acceptance = 1.00000 (  157 accepted /   157 generated), mean len = 53.33\n"}`)
	u.Unwrap(line)
	if n := testing.AllocsPerRun(100, func() { u.Unwrap(line) }); n != 0 {
		t.Errorf("%v allocations per record", n)
	}
}

func FuzzLlamaJSONL(f *testing.F) {
	f.Add([]byte(`{"type":"log","time":616319,"level":"info","msg":"srv  llama_server: listening on http://127.0.0.1:18080\n"}`))
	f.Add([]byte(`{"type":"fit_memory_breakdown","data":{"unit":"MiB","rows":[{"kind":"host","self":300}]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var u LlamaJSONL
		text, us, r := u.Unwrap(line)
		if r == Unwrapped && (us < -1 || us >= 1e15 || len(text) > len(line)) {
			t.Fatalf("%q: %q at %d", line, text, us)
		}
		if r != Unwrapped && (us != -1 || !bytes.Equal(text, line)) {
			t.Fatalf("%q: %v changed it", line, r)
		}
	})
}
