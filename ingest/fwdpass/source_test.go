package fwdpass

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	mrank "github.com/specwatch/specwatch/model/rank"
	"github.com/specwatch/specwatch/sample"
)

// TestRankLabel: a DP rank's series is named as the engine's logs name it, and model/rank reads
// the name back as that DP rank.
func TestRankLabel(t *testing.T) {
	for _, c := range []struct {
		engine sample.Engine
		dp     int
		topo   Topology
		want   string
	}{
		{sample.EngineVLLM, 0, Topology{}, "Engine 000"},
		{sample.EngineVLLM, 12, Topology{DPSize: 16}, "Engine 012"},
		{sample.EngineSGLang, 0, Topology{}, ""},                                               // one GPU: no prefix
		{sample.EngineSGLang, 0, Topology{TPSize: 2}, "TP0"},                                   // tensor parallel alone
		{sample.EngineSGLang, 3, Topology{DPSize: 4, TPSize: 4, DPAttention: true}, "DP3 TP3"}, // DP attention, 1 GPU per DP rank
		{sample.EngineSGLang, 1, Topology{DPSize: 2, TPSize: 8, DPAttention: true}, "DP1 TP4"}, // 4 GPUs per DP rank
		{sample.EngineSGLang, 1, Topology{DPSize: 2, TPSize: 2}, "DP1 TP0"},                    // DP replicas, each its own TP group
		{sample.EngineSGLang, 2, Topology{DPSize: 4}, "DP2"},                                   // DP replicas of one GPU
		{sample.EngineSGLang, 3, Topology{DPSize: 4, TPSize: 4, EPSize: 4, DPAttention: true}, "DP3 TP3 EP3"},
		{sample.EngineSGLang, 1, Topology{DPSize: 2, TPSize: 8, PPSize: 2, DPAttention: true}, "DP1 PP1 TP4"},
	} {
		got := RankLabel(c.engine, c.dp, c.topo)
		if got != c.want {
			t.Errorf("%s rank %d %+v: %q, want %q", c.engine, c.dp, c.topo, got, c.want)
		}
		if p := mrank.Split(got); (c.topo.DPSize > 1 || c.engine == sample.EngineVLLM) && p.DP != strconv.Itoa(c.dp) {
			t.Errorf("%q reads back as dp %q, want %d", got, p.DP, c.dp)
		}
	}
}

// TestRankEndpoint: rank r publishes at the base port + r (vLLM) or the ipc path + ".r"
// (SGLang); a bind address or another transport is refused with what to write instead.
func TestRankEndpoint(t *testing.T) {
	for _, c := range []struct{ base, network, addr, shown string }{
		{"tcp://127.0.0.1:20380", "tcp", "127.0.0.1:20383", "tcp://127.0.0.1:20383"},
		{"tcp://[::1]:20380", "tcp", "[::1]:20383", "tcp://[::1]:20383"},
		{"ipc:///tmp/sglang-fpm", "unix", "/tmp/sglang-fpm.3", "ipc:///tmp/sglang-fpm.3"},
	} {
		n, a, s, err := rankEndpoint(c.base, 3)
		if err != nil || n != c.network || a != c.addr || s != c.shown {
			t.Errorf("%s: %s %s %s %v", c.base, n, a, s, err)
		}
	}
	for _, bad := range []string{"tcp://*:20380", "tcp://127.0.0.1", "tcp://h:65535", "inproc://x", "127.0.0.1:20380", "ipc://"} {
		if _, _, _, err := rankEndpoint(bad, 3); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestNew: the series' host is this machine's name for a loopback or ipc endpoint, the label's
// when given, else the endpoint's host; engines without a publisher and duplicates are refused.
func TestNew(t *testing.T) {
	s, err := New(Options{Sink: &collector{}, LocalHost: "gpu07", Endpoints: []Endpoint{
		{Engine: sample.EngineVLLM, Base: "tcp://127.0.0.1:20380", Ranks: []int{0, 1}},
		{Engine: sample.EngineSGLang, Base: "ipc:///run/fpm"},
		{Engine: sample.EngineVLLM, Base: "tcp://10.0.0.7:20380"},
		{Engine: sample.EngineVLLM, Base: "tcp://10.0.0.8:20380", Labels: map[string]string{"host": "gpu08"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var hosts []string
	for _, r := range s.ranks {
		hosts = append(hosts, string(r.host))
	}
	if got := strings.Join(hosts, ","); got != "gpu07,gpu07,gpu07,10.0.0.7,gpu08" {
		t.Errorf("hosts %s", got)
	}
	for _, eps := range [][]Endpoint{
		{{Engine: sample.EngineLlamaCpp, Base: "tcp://127.0.0.1:1"}},
		{{Engine: sample.EngineVLLM, Base: "tcp://127.0.0.1:20380", Ranks: []int{1}}, {Engine: sample.EngineVLLM, Base: "tcp://127.0.0.1:20381"}},
		{{Engine: sample.EngineVLLM, Base: "tcp://127.0.0.1:20380", Ranks: []int{-1}}},
	} {
		if _, err := New(Options{Sink: &collector{}, Endpoints: eps}); err == nil {
			t.Errorf("%+v accepted", eps)
		}
	}
}

// fakeConn holds one message as conn.next leaves it: frames in buf.
func fakeConn(frames ...[]byte) *conn {
	z := &conn{}
	for _, f := range frames {
		z.frames[z.n] = [2]int{len(z.in), len(z.in) + len(f)}
		z.in = append(z.in, f...)
		z.n++
	}
	return z
}

func seqFrame(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// TestSequence: gaps in the sequence are counted lost; a sequence that goes back, or a new
// worker_id, is a restart (an EventRestart sample), never a loss; heartbeats are counted and
// give no sample; a damaged payload or another schema version is refused and counted.
func TestSequence(t *testing.T) {
	c := &collector{}
	now := time.Unix(1700000000, 0)
	s, err := New(Options{Sink: c, Clock: func() time.Time { return now }, Endpoints: []Endpoint{{Engine: sample.EngineVLLM, Base: "tcp://127.0.0.1:20380"}}})
	if err != nil {
		t.Fatal(err)
	}
	r := s.ranks[0]
	mixed, beat := fixture(t, "vllm-mixed.msgpack"), fixture(t, "sglang-heartbeat.msgpack")
	send := func(seq uint64, payload []byte) { s.handle(r, fakeConn(nil, seqFrame(seq), payload)) }
	send(5, mixed) // joined mid-stream: no loss
	send(6, mixed)
	send(9, mixed) // 7 and 8 lost
	send(10, beat) // worker "endpoint-42" after "a1b2c": a restart
	send(11, beat) // same worker
	send(0, beat)  // sequence back: a restart
	send(1, []byte{0x91})
	send(2, enc{}.mapN(1).str("version").append1(2))
	st := s.Stats()[0]
	if st.Lost != 2 || st.Restarts != 2 || st.Mixed != 3 || st.Heartbeats != 3 || st.Malformed != 2 {
		t.Errorf("%+v", st)
	}
	var kinds []string
	for _, g := range c.all() {
		kinds = append(kinds, g.kind.String()+"/"+g.event.String())
		want := "Engine 003" // the message's dp_rank: the vLLM pass's 3, the SGLang heartbeat's 1
		if g.kind == sample.KindEvent {
			want = "Engine 001"
		}
		if g.rank != want || g.source != sample.SourceForwardPass {
			t.Errorf("sample %+v: want rank %s", g, want)
		}
	}
	if got := strings.Join(kinds, " "); got != "prefill/iteration prefill/iteration prefill/iteration event/restart event/restart" {
		t.Errorf("samples: %s", got)
	}
	if n := testutil.CollectAndCount(s); n != 1+1+1+4+1+1+2 {
		t.Errorf("%d series exported", n)
	}
}

// TestIterationFields: a pass of decode requests only is a KindDecode sample of its step,
// batch, KV tokens and queue; one with a prefill is KindPrefill and says the prefill.
func TestIterationFields(t *testing.T) {
	m := Message{WallTime: 0.02, Scheduled: Requests{NumDecode: 8, SumDecodeKV: 8000}, Queued: Requests{NumPrefill: 2, NumDecode: 1}}
	var x sample.Sample
	iteration(&m, &x)
	if x.Kind != sample.KindDecode || x.Value(sample.StepSeconds) != 0.02 || x.Value(sample.Running) != 8 ||
		x.Value(sample.Context) != 8000 || x.Value(sample.Queue) != 3 || x.Has(sample.NewTokens) {
		t.Errorf("decode pass: %+v", x)
	}
	m.Scheduled.NumPrefill, m.Scheduled.SumPrefillTokens, m.Scheduled.SumPrefillKV, m.WallTime = 1, 512, 64, 0
	x.Reset()
	iteration(&m, &x)
	if x.Kind != sample.KindPrefill || x.Value(sample.NewSeqs) != 1 || x.Value(sample.NewTokens) != 512 ||
		x.Value(sample.CachedTokens) != 64 || x.Has(sample.StepSeconds) {
		t.Errorf("mixed pass without a time: %+v", x)
	}
}

// BenchmarkHandle is the source's work per message once read: decode, sequence, sample, sink.
func BenchmarkHandle(b *testing.B) {
	s, err := New(Options{Sink: discard{}, Endpoints: []Endpoint{{Engine: sample.EngineVLLM, Base: "tcp://127.0.0.1:20380"}}})
	if err != nil {
		b.Fatal(err)
	}
	r, z := s.ranks[0], fakeConn(nil, seqFrame(0), fixture(b, "vllm-mixed.msgpack"))
	seq := z.part(1)
	b.ReportAllocs()
	n := uint64(0)
	for b.Loop() {
		n++
		binary.BigEndian.PutUint64(seq, n)
		s.handle(r, z)
	}
	if st := s.Stats()[0]; st.Lost != 0 || st.Malformed != 0 {
		b.Fatalf("%+v", st)
	}
}

type discard struct{}

func (discard) ApplySample(sample.Result, *sample.Sample) {}
