package fwdpass

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeFixtures reads payloads that publisher.py wrote in the engines' layout (msgspec's
// map of field names; its docstring says why the bytes are msgspec's): a vLLM mixed pass, an
// SGLang heartbeat, and an SGLang payload from before version and counter_id.
func TestDecodeFixtures(t *testing.T) {
	var m Message
	if err := Decode(fixture(t, "vllm-mixed.msgpack"), &m); err != nil {
		t.Fatal(err)
	}
	want := Message{Version: 1, WorkerID: []byte("a1b2c"), DPRank: 3, CounterID: 41, HasCounter: true,
		TimingScope: []byte("execute_model_cuda"), WallTime: 0.0153,
		Scheduled: Requests{NumPrefill: 1, SumPrefillTokens: 2048, SumPrefillKV: 256, NumDecode: 12, SumDecodeKV: 6500, VarDecodeKV: 1024.5},
		Queued:    Requests{NumPrefill: 2, SumPrefillTokens: 1400, NumDecode: 1, SumDecodeKV: 900}}
	if string(m.WorkerID) != string(want.WorkerID) || string(m.TimingScope) != string(want.TimingScope) {
		t.Errorf("strings: %q %q", m.WorkerID, m.TimingScope)
	}
	m.WorkerID, m.TimingScope, want.WorkerID, want.TimingScope = nil, nil, nil, nil
	if !reflect.DeepEqual(m, want) {
		t.Errorf("vLLM mixed pass:\n got %+v\nwant %+v", m, want)
	}
	if m.Heartbeat() || kindOf(&m) != msgMixed {
		t.Errorf("a mixed pass taken for kind %d", kindOf(&m))
	}

	if err := Decode(fixture(t, "sglang-heartbeat.msgpack"), &m); err != nil {
		t.Fatal(err)
	}
	if !m.Heartbeat() || string(m.WorkerID) != "endpoint-42" || m.DPRank != 1 || m.CounterID != 7 || m.TimingScope != nil || m.WallTime != 0 {
		t.Errorf("SGLang heartbeat: %+v", m)
	}

	if err := Decode(fixture(t, "sglang-v0-decode.msgpack"), &m); err != nil {
		t.Fatal(err)
	}
	if m.Version != 0 || m.HasCounter || m.Scheduled.NumDecode != 4 || m.Scheduled.SumDecodeKV != 4000 || m.WallTime != 0.02 {
		t.Errorf("SGLang before version 1: %+v", m)
	}
}

// enc writes msgpack for the tests: just what they need.
type enc []byte

func (e enc) mapN(n int) enc   { return append(e, 0x80|byte(n)) }
func (e enc) str(s string) enc { return append(append(e, 0xa0|byte(len(s))), s...) }
func (e enc) f64(v float64) enc {
	return binary.BigEndian.AppendUint64(append(e, 0xcb), math.Float64bits(v))
}
func (e enc) u64(v uint64) enc { return binary.BigEndian.AppendUint64(append(e, 0xcf), v) }

// TestDecodeTypes: integers of every width, float32, unknown keys of any type (a later
// schema's) are read or skipped; wrong types, truncation and trailing bytes are errors.
func TestDecodeTypes(t *testing.T) {
	req := enc{}.mapN(3).str("num_decode_requests").u64(5).str("sum_decode_kv_tokens").
		append1(0xce, 0, 1, 0, 0).str("var_decode_kv_tokens").append1(0xca, 0x3f, 0x80, 0, 0)
	msg := enc{}.mapN(6).str("version").append1(1).str("counter_id").append1(0xcd, 1, 0).
		str("future").append1(0x92, 0xc3, 0xd4, 1, 2). // [true, fixext1]
		str("nested").mapN(1).str("x").append1(0xc4, 2, 9, 9).
		str("scheduled_requests")
	msg = append(msg, req...)
	msg = msg.str("wall_time").append1(0xd0, 0xff) // int8 -1 as a number
	var m Message
	if err := Decode(msg, &m); err != nil {
		t.Fatal(err)
	}
	if m.Version != 1 || m.CounterID != 256 || m.Scheduled.NumDecode != 5 || m.Scheduled.SumDecodeKV != 65536 ||
		m.Scheduled.VarDecodeKV != 1 || m.WallTime != -1 {
		t.Errorf("%+v", m)
	}
	for name, b := range map[string][]byte{
		"array top level":   {0x91, 0x01},
		"truncated":         msg[:len(msg)-1],
		"trailing":          append(append([]byte{}, msg...), 0),
		"string wall_time":  enc{}.mapN(1).str("wall_time").str("x"),
		"negative count":    enc{}.mapN(1).str("scheduled_requests").mapN(1).str("num_decode_requests").append1(0xff),
		"NaN count":         enc{}.mapN(1).str("scheduled_requests").mapN(1).str("sum_decode_kv_tokens").f64(math.NaN()),
		"deep unknown":      enc{}.mapN(1).str("x").append1(0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0x91, 0),
		"huge array length": enc{}.mapN(1).str("x").append1(0xdd, 0xff, 0xff, 0xff, 0xff),
		"negative counter":  enc{}.mapN(1).str("counter_id").append1(0xff),
	} {
		if err := Decode(b, &m); !errors.Is(err, errFormat) {
			t.Errorf("%s: %v, want a format error", name, err)
		}
	}
}

func (e enc) append1(b ...byte) enc { return append(e, b...) }

// TestDecodeAllocs: a message is decoded in place.
func TestDecodeAllocs(t *testing.T) {
	b := fixture(t, "vllm-mixed.msgpack")
	var m Message
	if n := testing.AllocsPerRun(100, func() { _ = Decode(b, &m) }); n != 0 {
		t.Errorf("%v allocations per message", n)
	}
}

// BenchmarkDecode is the decoding of one engine message.
func BenchmarkDecode(b *testing.B) {
	p := fixture(b, "vllm-mixed.msgpack")
	var m Message
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(p, &m); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, n := range []string{"vllm-mixed.msgpack", "sglang-heartbeat.msgpack", "sglang-v0-decode.msgpack"} {
		f.Add(fixture(f, n))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m Message
		if err := Decode(b, &m); err != nil {
			return
		}
		for _, v := range []float64{m.Scheduled.NumDecode, m.Scheduled.SumDecodeKV, m.Queued.NumPrefill} {
			if v < 0 || math.IsNaN(v) {
				t.Fatalf("a count of %v decoded", v)
			}
		}
	})
}
