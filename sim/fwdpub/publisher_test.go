package fwdpub

import (
	"bytes"
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest/fwdpass"
	"github.com/specwatch/specwatch/sample"
)

// The payload is byte for byte what the engines' publisher writes (ingest/fwdpass's fixture,
// made by msgpack.packb of the engine's fields in declaration order).
func TestPayloadIsTheEngines(t *testing.T) {
	want, err := os.ReadFile("../../ingest/fwdpass/testdata/vllm-mixed.msgpack")
	if err != nil {
		t.Fatal(err)
	}
	var m fwdpass.Message
	if err := fwdpass.Decode(want, &m); err != nil {
		t.Fatal(err)
	}
	sc, q := m.Scheduled, m.Queued
	got := appendMetrics(nil, true, string(m.WorkerID), int(m.DPRank), m.CounterID, &Metrics{WallTime: m.WallTime,
		Scheduled: Requests{NumPrefill: int(sc.NumPrefill), SumPrefillTokens: int(sc.SumPrefillTokens), VarPrefillLength: sc.VarPrefillLength,
			SumPrefillKV: int(sc.SumPrefillKV), NumDecode: int(sc.NumDecode), SumDecodeKV: int(sc.SumDecodeKV), VarDecodeKV: sc.VarDecodeKV},
		Queued: Requests{NumPrefill: int(q.NumPrefill), SumPrefillTokens: int(q.SumPrefillTokens), VarPrefillLength: q.VarPrefillLength,
			NumDecode: int(q.NumDecode), SumDecodeKV: int(q.SumDecodeKV), VarDecodeKV: q.VarDecodeKV}})
	if !bytes.Equal(got, want) {
		t.Errorf("payload differs from the engine's:\n got % x\nwant % x", got, want)
	}
}

type sink struct {
	mu    sync.Mutex
	steps []float64
	ctx   []float64
}

func (s *sink) ApplySample(_ sample.Result, x *sample.Sample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	step, ok := x.Get(sample.StepSeconds)
	if x.Event == sample.EventIteration && ok {
		ctx, _ := x.Get(sample.Context)
		s.steps, s.ctx = append(s.steps, step), append(s.ctx, ctx)
	}
}

func (s *sink) len() int { s.mu.Lock(); defer s.mu.Unlock(); return len(s.steps) }

// specwatch's own subscriber joins the publisher, takes its heartbeat while it is idle and every
// iteration once it publishes, none lost.
func TestSubscriberReadsEveryPass(t *testing.T) {
	p, err := Listen("127.0.0.1:0", Options{Heartbeat: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	k := &sink{}
	src, err := fwdpass.New(fwdpass.Options{Sink: k, LocalHost: "gpu05", Poll: 5 * time.Millisecond,
		Endpoints: []fwdpass.Endpoint{{Engine: sample.EngineSGLang, Base: p.Endpoint()}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = src.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	wait := func(what string, ok func(fwdpass.Stats) bool) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); !ok(src.Stats()[0]); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %s within a minute: %+v", what, src.Stats())
			}
		}
	}
	wait("heartbeat", func(s fwdpass.Stats) bool { return s.Up && s.Heartbeats > 0 })
	const n = 500
	for i := range n {
		p.Publish(Metrics{WallTime: 0.020 + float64(i)*1e-6, Scheduled: Requests{NumDecode: 4, SumDecodeKV: 4000 + i}})
	}
	wait("iterations", func(s fwdpass.Stats) bool { return s.Decode == n })
	st := src.Stats()[0]
	if st.Lost != 0 || st.Malformed != 0 || st.Restarts != 0 {
		t.Errorf("stats %+v: want nothing lost, malformed or restarted", st)
	}
	if k.len() != n {
		t.Fatalf("%d iterations applied, want %d", k.len(), n)
	}
	for i := range n {
		if k.steps[i] != 0.020+float64(i)*1e-6 || k.ctx[i] != float64(4000+i) {
			t.Fatalf("iteration %d: step %g context %g, want %g and %d", i, k.steps[i], k.ctx[i], 0.020+float64(i)*1e-6, 4000+i)
		}
	}
}
