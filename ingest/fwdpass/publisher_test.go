package fwdpass

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sample"
)

// The tests here run testdata/publisher.py, the engines' publisher with Debian's python3-zmq and
// python3-msgpack (scripts/deps.sh installs them). Without them a test skips saying so, except
// under CI or SPECWATCH_REQUIRE_ENGINE (scripts/test.sh), where it fails: a skip there would
// hide a broken setup.

// python finds an interpreter that has zmq and msgpack: Debian's first (the packages install
// for it), then whatever python3 is on PATH.
func python(t testing.TB) string {
	t.Helper()
	var tried []string
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		out, err := exec.Command(p, "-c", "import zmq, msgpack").CombinedOutput()
		if err == nil {
			return p
		}
		tried = append(tried, fmt.Sprintf("%s: %v %s", p, err, strings.TrimSpace(string(out))))
	}
	msg := "no python3 with zmq and msgpack (apt-get install python3-zmq python3-msgpack; scripts/deps.sh): " + strings.Join(tried, "; ")
	if os.Getenv("CI") != "" || os.Getenv("SPECWATCH_REQUIRE_ENGINE") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// publisher is a running testdata/publisher.py.
type publisher struct {
	t     testing.TB
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
}

// startPublisher runs the publisher with args and waits until it has bound its sockets.
func startPublisher(t testing.TB, args ...string) *publisher {
	t.Helper()
	cmd := exec.Command(python(t), append([]string{filepath.Join("testdata", "publisher.py")}, args...)...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &publisher{t: t, cmd: cmd, in: in, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(p.kill)
	p.expect("ready")
	return p
}

// expect waits for the publisher's next line, which must be want.
func (p *publisher) expect(want string) {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok || l != want {
			p.t.Fatalf("publisher said %q (open %v), want %q", l, ok, want)
		}
	case <-time.After(60 * time.Second):
		p.t.Fatalf("publisher: no %q within a minute", want)
	}
}

// burst publishes n iterations on every rank, at the publisher's rate, and waits until it has.
func (p *publisher) burst(n int) {
	p.t.Helper()
	if _, err := fmt.Fprintf(p.in, "burst %d\n", n); err != nil {
		p.t.Fatal(err)
	}
	p.expect(fmt.Sprintf("done %d", n))
}

// kill ends the publisher as a crash would (SIGKILL: no socket closed cleanly).
func (p *publisher) kill() {
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	}
}

// freePorts finds n consecutive free TCP ports on loopback (a base and its ranks).
func freePorts(t testing.TB, n int) int {
	t.Helper()
	for range 50 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		base := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		ok := base+n <= 65535
		for i := 1; i < n && ok; i++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+i))
			if err != nil {
				ok = false
				break
			}
			l.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free consecutive ports")
	return 0
}

// collector is a Sink that keeps a copy of every sample's key and figures.
type collector struct {
	mu      sync.Mutex
	samples []got
}

type got struct {
	kind             sample.Kind
	event            sample.Event
	source           sample.Source
	engine           sample.Engine
	host, unit, rank string
	step             float64
	hasStep          bool
	running, ctx     float64
	queue, newTokens float64
}

func (c *collector) ApplySample(_ sample.Result, s *sample.Sample) {
	step, hasStep := s.Get(sample.StepSeconds)
	g := got{kind: s.Kind, event: s.Event, source: s.Source, engine: s.Engine, host: string(s.Host), unit: string(s.Unit),
		rank: string(s.Rank), step: step, hasStep: hasStep, running: s.Value(sample.Running), ctx: s.Value(sample.Context),
		queue: s.Value(sample.Queue), newTokens: s.Value(sample.NewTokens)}
	c.mu.Lock()
	c.samples = append(c.samples, g)
	c.mu.Unlock()
}

func (c *collector) all() []got {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]got(nil), c.samples...)
}

// run starts a source on the endpoints and returns it and its sink; it stops with the test.
func run(t testing.TB, eps ...Endpoint) (*Source, *collector) {
	t.Helper()
	c := &collector{}
	s, err := New(Options{Endpoints: eps, Sink: c, LocalHost: "gpu07", Timeout: 3 * time.Second,
		Warn: func(ep, msg string, err error) { t.Logf("%s: %s: %v", ep, msg, err) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return s, c
}

// waitFor polls the source's counts until ok holds for every rank (a minute at most): the tests
// wait on what they observe, never on a sleep.
func waitFor(t testing.TB, s *Source, what string, ok func(Stats) bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		all := true
		st := s.Stats()
		for _, r := range st {
			all = all && ok(r)
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within a minute: %+v", what, st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func subscribed(st Stats) bool { return st.Up && st.Heartbeats > 0 }

// TestRealPublisherNoLoss: four ranks of a vLLM publisher at 200 iterations per second each (a
// busy engine's rate): every message arrives, none missing from the sequence numbers, each a
// sample of its rank's series ("Engine 000" … "Engine 003", the host this machine), its step the
// message's wall time; every tenth is a mixed pass, kept apart as KindPrefill.
func TestRealPublisherNoLoss(t *testing.T) {
	const ranks, n = 4, 1000
	base := freePorts(t, ranks)
	p := startPublisher(t, "--engine", "vllm", "--endpoint", fmt.Sprintf("tcp://127.0.0.1:%d", base),
		"--ranks", fmt.Sprint(ranks), "--rate", "200", "--mixed-every", "10", "--heartbeat", "0.2")
	s, c := run(t, Endpoint{Engine: sample.EngineVLLM, Base: fmt.Sprintf("tcp://127.0.0.1:%d", base), Ranks: []int{0, 1, 2, 3},
		Labels: map[string]string{"unit": "vllm.service"}})
	// A PUB socket drops what it publishes before a subscription reaches it: the burst starts
	// once every rank's heartbeat has come through.
	waitFor(t, s, "subscription", subscribed)
	start := time.Now()
	p.burst(n)
	waitFor(t, s, "burst", func(st Stats) bool { return st.Decode+st.Mixed >= n })
	t.Logf("%d iterations on %d ranks in %s", n, ranks, time.Since(start))
	for _, st := range s.Stats() {
		if st.Decode != n-n/10 || st.Mixed != n/10 || st.Prefill != 0 || st.Lost != 0 || st.Malformed != 0 || st.Restarts != 0 {
			t.Errorf("%+v: want %d decode, %d mixed, nothing lost, refused or restarted", st, n-n/10, n/10)
		}
	}
	perRank := map[string]int{}
	for _, g := range c.all() {
		perRank[g.rank]++
		if g.source != sample.SourceForwardPass || g.event != sample.EventIteration || g.engine != sample.EngineVLLM ||
			g.host != "gpu07" || g.unit != "vllm.service" || !g.hasStep || g.running < 8 {
			t.Fatalf("sample %+v", g)
		}
		// The publisher's step is 12 ms + 2e-7 s per KV token (+30 ms with a prefill).
		want := 0.012 + 2e-7*g.ctx
		if g.kind == sample.KindPrefill {
			want += 0.030
			if g.newTokens != 2048 {
				t.Fatalf("mixed pass %+v: want 2048 new tokens", g)
			}
		}
		if d := g.step - want; d > 1e-9 || d < -1e-9 {
			t.Fatalf("sample %+v: step %v, want %v", g, g.step, want)
		}
	}
	for r := range ranks {
		if name := fmt.Sprintf("Engine %03d", r); perRank[name] != n {
			t.Errorf("rank %s: %d samples, want %d (%v)", name, perRank[name], n, perRank)
		}
	}
}

// TestRealPublisherRestart: the publisher is killed and another started on the same ports (a
// new worker_id, its sequence from 0 again): each rank is joined again, the restart counted and
// given to the series as an EventRestart sample, and nothing of either publisher's iterations
// counted lost.
func TestRealPublisherRestart(t *testing.T) {
	const ranks, n = 2, 100
	base := freePorts(t, ranks)
	ep := fmt.Sprintf("tcp://127.0.0.1:%d", base)
	args := []string{"--engine", "vllm", "--endpoint", ep, "--ranks", fmt.Sprint(ranks), "--rate", "200", "--heartbeat", "0.2"}
	p := startPublisher(t, args...)
	s, c := run(t, Endpoint{Engine: sample.EngineVLLM, Base: ep, Ranks: []int{0, 1}})
	waitFor(t, s, "subscription", subscribed)
	p.burst(n)
	waitFor(t, s, "first burst", func(st Stats) bool { return st.Decode >= n })
	p.kill()
	waitFor(t, s, "loss of the publisher", func(st Stats) bool { return !st.Up })
	p = startPublisher(t, args...)
	waitFor(t, s, "the restarted publisher", func(st Stats) bool { return st.Up && st.Restarts == 1 })
	p.burst(n)
	waitFor(t, s, "second burst", func(st Stats) bool { return st.Decode >= 2*n })
	for _, st := range s.Stats() {
		if st.Decode != 2*n || st.Lost != 0 || st.Restarts != 1 || st.Connects != 2 {
			t.Errorf("%+v: want %d decode, nothing lost, 1 restart, 2 connections", st, 2*n)
		}
	}
	restarts := map[string]int{}
	for _, g := range c.all() {
		if g.kind == sample.KindEvent && g.event == sample.EventRestart {
			restarts[g.rank]++
		}
	}
	if restarts["Engine 000"] != 1 || restarts["Engine 001"] != 1 {
		t.Errorf("restart events %v, want one per rank", restarts)
	}
}

// TestRealPublisherIdle: an idle SGLang publisher (ipc://, PATH.rank) sends only heartbeats:
// counted, and no sample.
func TestRealPublisherIdle(t *testing.T) {
	dir := t.TempDir()
	ep := "ipc://" + filepath.Join(dir, "fpm")
	startPublisher(t, "--engine", "sglang", "--endpoint", ep, "--ranks", "2", "--heartbeat", "0.2")
	s, c := run(t, Endpoint{Engine: sample.EngineSGLang, Base: ep, Ranks: []int{0, 1}, Topology: Topology{DPSize: 2}})
	waitFor(t, s, "three heartbeats", func(st Stats) bool { return st.Heartbeats >= 3 })
	for _, st := range s.Stats() {
		if st.Decode+st.Prefill+st.Mixed != 0 || st.Lost != 0 || st.Malformed != 0 {
			t.Errorf("%+v: want heartbeats only", st)
		}
	}
	if got := c.all(); len(got) != 0 {
		t.Errorf("idle publisher gave samples: %+v", got)
	}
	if eps := s.Endpoints(); eps[1] != ep+".1" {
		t.Errorf("endpoints %v, want rank 1 at %s.1", eps, ep)
	}
}
