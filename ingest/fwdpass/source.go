// Package fwdpass is the engines' forward-pass metrics stream as a source: vLLM
// (--forward-pass-metrics-port) and SGLang (--enable-forward-pass-metrics) publish one msgpack
// ForwardPassMetrics per forward pass on a ZeroMQ PUB socket per data-parallel rank, and an idle
// heartbeat every second. The source subscribes to each rank (zmtp.go), decodes the messages
// (decode.go) and hands each iteration to a Sink as a sample of the rank's series: the series
// the engine's logs and /metrics make (same host, unit, engine and rank; rank.go), so that the
// per-iteration step, batch and KV tokens sit beside the speculative counters of the same rank.
//
// Lifecycle, as ingest/scrape's: New checks the endpoints; Run subscribes to every rank on a
// goroutine of its own and returns when ctx ends, after every goroutine has returned. A rank's
// publisher that is absent, silent past Timeout (it owes a heartbeat every second) or gone is
// dialled again, with backoff, for as long as Run runs; one that restarted (its sequence went
// back, or its worker_id changed) is joined again and yields an EventRestart sample.
package fwdpass

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/specwatch/specwatch/sample"
)

// Endpoint is one engine's forward-pass publishers: one per listed data-parallel rank.
type Endpoint struct {
	Engine sample.Engine // EngineVLLM or EngineSGLang
	// Base is the engine's setting: tcp://HOST:PORT (vLLM's port; rank r at PORT+r) or
	// ipc://PATH (SGLang's --forward-pass-metrics-ipc-name; rank r at PATH.r).
	Base string
	// Ranks are the DP ranks to subscribe to (those on this node); nil: rank 0.
	Ranks []int
	// RankLabels name a DP rank's series where RankLabel's rule does not (SGLang tags the
	// topology does not cover); Topology is the SGLang deployment's.
	RankLabels map[int]string
	Topology   Topology
	// Labels: "host" (else Options.LocalHost for a loopback or ipc endpoint, else the tcp
	// host), "unit", "container", "namespace" and "pod": the series key parts that the engine's
	// logs have, as a scrape target's.
	Labels map[string]string
}

// Sink takes resolved samples; pipeline.Pipeline and ingest.Samples are ones. Calls are
// serialized by the source, and the sample is the source's again when ApplySample returns.
type Sink interface {
	ApplySample(sample.Result, *sample.Sample)
}

// Options configure New.
type Options struct {
	Endpoints []Endpoint
	Sink      Sink
	Clock     func() time.Time // stamps each sample (the messages carry no time); nil: time.Now
	LocalHost string           // see Endpoint.Labels
	// Timeout bounds a dial and its handshake, and a connection's silence: past it without a
	// message (the engines publish a heartbeat every second) the connection is dropped and
	// dialled again. 0: DefaultTimeout.
	Timeout time.Duration
	// Backoff is the first wait before dialling a rank again; it doubles up to MaxBackoff.
	// 0: DefaultBackoff, DefaultMaxBackoff.
	Backoff, MaxBackoff time.Duration
	// Poll is how often a connection's socket is read: every message it holds then is
	// applied, stamped with that time. A read per message would wake the daemon hundreds of
	// times a second per rank; the samples' times are as precise as Poll. 0: DefaultPoll.
	Poll time.Duration
	// Warn is told of a rank's first failure (at the start or after it was connected) and of
	// its connection; the failures in between are only counted.
	Warn func(endpoint, msg string, err error)
}

// Defaults of Options.
const (
	DefaultTimeout    = 5 * time.Second
	DefaultBackoff    = 100 * time.Millisecond
	DefaultMaxBackoff = 2 * time.Second
	DefaultPoll       = 100 * time.Millisecond
)

// Source subscribes to the endpoints' ranks and applies their iterations to the sink.
type Source struct {
	o      Options
	sinkMu sync.Mutex
	ranks  []*rank
}

// rank is one publisher: its address, its series key, and the state of its stream, touched
// only by its goroutine but for the counters.
type rank struct {
	name            string // the endpoint as shown (the metrics' endpoint label)
	network, addr   string
	engine          sample.Engine
	dp              int // the DP rank it was dialled as
	labels          map[int]string
	topo            Topology
	host, unit      []byte
	ctr, ns, pod    []byte
	rankDP          int64 // the DP rank whose label rankName holds
	rankName        []byte
	seq             uint64 // the last message's sequence number
	hasSeq          bool
	worker          []byte // the publisher's worker_id
	msg             Message
	s               sample.Sample
	stats           counters
	connected, warn bool
}

// New checks the endpoints and builds the source.
func New(o Options) (*Source, error) {
	if o.Sink == nil {
		return nil, errors.New("forward pass: no sink")
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.MaxBackoff < o.Backoff {
		o.MaxBackoff = max(DefaultMaxBackoff, o.Backoff)
	}
	s := &Source{o: o}
	seen := map[string]bool{}
	for _, ep := range o.Endpoints {
		if ep.Engine != sample.EngineVLLM && ep.Engine != sample.EngineSGLang {
			return nil, fmt.Errorf("forward pass %s: engine %s publishes no forward-pass metrics (vllm, sglang)", ep.Base, ep.Engine)
		}
		ranks := ep.Ranks
		if len(ranks) == 0 {
			ranks = []int{0}
		}
		for _, r := range ranks {
			if r < 0 {
				return nil, fmt.Errorf("forward pass %s: rank %d", ep.Base, r)
			}
			network, addr, shown, err := rankEndpoint(ep.Base, r)
			if err != nil {
				return nil, fmt.Errorf("forward pass: %w", err)
			}
			if seen[shown] {
				return nil, fmt.Errorf("forward pass: %s listed twice", shown)
			}
			seen[shown] = true
			rk := &rank{name: shown, network: network, addr: addr, engine: ep.Engine, dp: r, labels: ep.RankLabels, topo: ep.Topology,
				unit: []byte(ep.Labels["unit"]), ctr: []byte(ep.Labels["container"]), ns: []byte(ep.Labels["namespace"]),
				pod: []byte(ep.Labels["pod"]), rankDP: -1}
			switch h := ep.Labels["host"]; {
			case h != "":
				rk.host = []byte(h)
			case o.LocalHost != "" && loopback(network, addr):
				rk.host = []byte(o.LocalHost)
			case network == "tcp":
				host, _, _ := net.SplitHostPort(addr)
				rk.host = []byte(host)
			}
			s.ranks = append(s.ranks, rk)
		}
	}
	return s, nil
}

// Endpoints are the ranks' endpoints as the metrics label them, in the order of the options.
func (s *Source) Endpoints() []string {
	out := make([]string, len(s.ranks))
	for i, r := range s.ranks {
		out[i] = r.name
	}
	return out
}

// Run subscribes to every rank until ctx ends; it returns nil once every rank's goroutine has.
func (s *Source) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, r := range s.ranks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.follow(ctx, r)
		}()
	}
	wg.Wait()
	return nil
}

// follow keeps rank r subscribed: dial, read until the connection fails or falls silent, wait,
// dial again.
func (s *Source) follow(ctx context.Context, r *rank) {
	wait := s.o.Backoff
	for ctx.Err() == nil {
		z, err := dial(ctx, r.network, r.addr, s.o.Timeout)
		if err == nil {
			wait = s.o.Backoff
			err = s.read(ctx, r, z)
		}
		if ctx.Err() != nil {
			return
		}
		r.stats.failures.Add(1)
		if !r.warn && s.o.Warn != nil {
			msg := "forward-pass publisher unreachable"
			if r.connected {
				msg = "forward-pass publisher lost"
			}
			s.o.Warn(r.name, msg, err)
		}
		r.warn, r.connected = true, false
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, s.o.MaxBackoff)
	}
}

// errSilent is a publisher that owes a heartbeat and sent nothing.
var errSilent = errors.New("no message within the timeout: the publisher owes a heartbeat every second")

// read applies the messages of one connection, every Poll, until it fails, falls silent or
// ctx ends.
func (s *Source) read(ctx context.Context, r *rank, z *conn) error {
	defer z.Close()
	r.stats.connects.Add(1)
	r.stats.up.Store(1)
	defer r.stats.up.Store(0)
	if s.o.Warn != nil && r.warn {
		s.o.Warn(r.name, "forward-pass publisher connected", nil)
	}
	r.connected, r.warn = true, false
	// Every rank reads at the same instants, the multiples of Poll: one wake-up of the daemon
	// for all of them, not one each.
	tick := time.NewTimer(s.o.Poll)
	defer tick.Stop()
	last := time.Now()
	for {
		n, err := z.poll()
		for err == nil {
			var ok bool
			if ok, err = z.next(); !ok {
				break
			}
			s.handle(r, z)
		}
		if err != nil {
			return err
		}
		now := time.Now()
		switch {
		case n > 0:
			last = now
		case now.Sub(last) > s.o.Timeout:
			return errSilent
		}
		if z.w == len(z.in) {
			continue // the buffer was full: the socket holds more
		}
		tick.Reset(now.Truncate(s.o.Poll).Add(s.o.Poll).Sub(now))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// handle applies the message z holds: the engines send three frames, an empty topic, the
// sequence number (8 bytes, big-endian) and the payload.
func (s *Source) handle(r *rank, z *conn) {
	payload := z.part(z.n - 1)
	m := &r.msg
	if err := Decode(payload, m); err != nil {
		r.stats.malformed[badFormat].Add(1)
		return
	}
	if m.Version != 0 && m.Version != 1 {
		r.stats.malformed[badVersion].Add(1)
		return
	}
	seq, hasSeq := m.CounterID, m.HasCounter
	if z.n >= 2 {
		if f := z.part(z.n - 2); len(f) == 8 {
			seq, hasSeq = binary.BigEndian.Uint64(f), true
		}
	}
	now := s.o.Clock().UnixNano()
	if s.track(r, m, seq, hasSeq) {
		r.stats.restarts.Add(1)
		s.event(r, m, now)
	}
	kind := kindOf(m)
	r.stats.messages[kind].Add(1)
	if kind == msgHeartbeat {
		return
	}
	x := &r.s
	s.fill(r, m, now, x)
	iteration(m, x)
	s.apply(x)
}

// track follows the publisher's sequence: it counts the messages missing between two it read
// (lost: dropped at the publisher's high-water mark, or published while this source was not
// connected) and reports a restart: the sequence went back, or the worker_id changed. The
// first message after New is neither.
func (s *Source) track(r *rank, m *Message, seq uint64, hasSeq bool) (restarted bool) {
	switch {
	case r.worker != nil && len(m.WorkerID) > 0 && string(r.worker) != string(m.WorkerID):
		restarted = true
	case !hasSeq || !r.hasSeq:
	case seq <= r.seq:
		restarted = true
	case seq > r.seq+1:
		r.stats.lost.Add(seq - r.seq - 1)
	}
	if r.worker == nil || string(r.worker) != string(m.WorkerID) {
		r.worker = append(r.worker[:0:0], m.WorkerID...) // allocates only when it changes
	}
	r.seq, r.hasSeq = seq, hasSeq
	return restarted
}
