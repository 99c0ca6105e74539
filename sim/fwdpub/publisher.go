// Package fwdpub is a simulated engine's forward-pass metrics publisher: a ZeroMQ PUB socket
// (ZMTP 3.0, NULL mechanism) that sends each iteration as vLLM and SGLang do — three frames: an
// empty topic, the counter as 8 big-endian bytes, the msgpack ForwardPassMetrics — and the idle
// heartbeat after a second without one. The demo serves it so that `specwatch demo` shows the
// forward-pass source; ingest/fwdpass's own tests use the engines' Python publisher instead.
package fwdpub

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Options are the publisher's identity and pace.
type Options struct {
	VLLM     bool   // vLLM's schema (timing_scope); else SGLang's
	WorkerID string // worker_id; default "demo"
	DPRank   int
	// Heartbeat is the idle interval after which an empty message goes out (the engines': 1 s).
	Heartbeat time.Duration
}

// Publisher serves subscribers on one listener. A subscriber too slow to take a message loses
// it, as a PUB socket past its high-water mark drops (the sequence shows the gap).
type Publisher struct {
	o    Options
	ln   net.Listener
	mu   sync.Mutex
	seq  uint64
	last time.Time
	subs map[*sub]bool
	buf  []byte
	done chan struct{}
	wg   sync.WaitGroup
}

// sub is one connection; out holds its framed messages until its writer sends them.
type sub struct {
	c          net.Conn
	out        chan []byte
	subscribed bool
}

// Listen binds addr ("127.0.0.1:0" for any free port) and serves until Close.
func Listen(addr string, o Options) (*Publisher, error) {
	if o.WorkerID == "" {
		o.WorkerID = "demo"
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = time.Second
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("forward-pass publisher: %w", err)
	}
	p := &Publisher{o: o, ln: ln, subs: map[*sub]bool{}, done: make(chan struct{}), last: time.Now()}
	p.wg.Add(2)
	go p.accept()
	go p.heartbeat()
	return p, nil
}

// Endpoint is the address subscribers dial, as the engines' flags name it (tcp://host:port).
func (p *Publisher) Endpoint() string { return "tcp://" + p.ln.Addr().String() }

// Publish numbers m and sends it to every subscriber.
func (p *Publisher) Publish(m Metrics) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.send(&m)
}

func (p *Publisher) send(m *Metrics) {
	seq := p.seq
	p.seq++
	p.last = time.Now()
	p.buf = appendMetrics(p.buf[:0], p.o.VLLM, p.o.WorkerID, p.o.DPRank, seq, m)
	msg := make([]byte, 0, len(p.buf)+20)
	msg = append(msg, flagMore, 0)                                     // the empty topic, more to come
	msg = binary.BigEndian.AppendUint64(append(msg, flagMore, 8), seq) // the counter
	msg = appendFrame(msg, 0, p.buf)                                   // the payload, last
	for s := range p.subs {
		if !s.subscribed {
			continue
		}
		select {
		case s.out <- msg:
		default: // past the high-water mark: dropped, as the engines' NOBLOCK send drops
		}
	}
}

// heartbeat publishes the idle message once a Heartbeat passes without one.
func (p *Publisher) heartbeat() {
	defer p.wg.Done()
	t := time.NewTicker(p.o.Heartbeat / 4)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case now := <-t.C:
			p.mu.Lock()
			if now.Sub(p.last) >= p.o.Heartbeat {
				p.send(&Metrics{})
			}
			p.mu.Unlock()
		}
	}
}

// Close stops the listener and every connection, and waits for them.
func (p *Publisher) Close() error {
	close(p.done)
	err := p.ln.Close()
	p.mu.Lock()
	for s := range p.subs {
		_ = s.c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

func (p *Publisher) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s := &sub{c: c, out: make(chan []byte, 1024)}
		p.mu.Lock()
		p.subs[s] = true
		p.mu.Unlock()
		p.wg.Add(2)
		go p.read(s)
		go p.write(s)
	}
}

// write sends s's messages until its connection fails or the publisher closes.
func (p *Publisher) write(s *sub) {
	defer p.wg.Done()
	for {
		select {
		case <-p.done:
			return
		case msg := <-s.out:
			if _, err := s.c.Write(msg); err != nil {
				return
			}
		}
	}
}

// read greets the subscriber and takes its subscriptions; at its end the subscriber is gone.
func (p *Publisher) read(s *sub) {
	defer p.wg.Done()
	defer func() {
		p.mu.Lock()
		delete(p.subs, s)
		p.mu.Unlock()
		_ = s.c.Close()
	}()
	r := bufio.NewReader(s.c)
	if err := p.handshake(s.c, r); err != nil {
		return
	}
	for {
		flags, body, err := readFrame(r)
		if err != nil {
			return
		}
		// A subscription is the 3.0 message \x01+prefix (what ingest/fwdpass sends) or the 3.1
		// SUBSCRIBE command; every prefix matches the empty topic the engines send on.
		on, off := len(body) > 0 && body[0] == 1, len(body) > 0 && body[0] == 0
		if flags&flagCommand != 0 {
			on = len(body) > 10 && string(body[1:10]) == "SUBSCRIBE"
			off = len(body) > 12 && string(body[1:12]) == "UNSUBSCRIBE"
		}
		if on || off {
			p.mu.Lock()
			s.subscribed = on
			p.mu.Unlock()
		}
	}
}

const (
	flagMore    = 0x01
	flagLong    = 0x02
	flagCommand = 0x04
)

var errPeer = errors.New("not a ZMTP 3 subscriber")

// handshake exchanges greetings (3.0, NULL, not as-server) and READY commands.
func (p *Publisher) handshake(c net.Conn, r *bufio.Reader) error {
	g := make([]byte, 64)
	g[0], g[9], g[10], g[11] = 0xff, 0x7f, 3, 0
	copy(g[12:32], "NULL")
	if _, err := c.Write(g); err != nil {
		return err
	}
	peer := make([]byte, 64)
	if _, err := io.ReadFull(r, peer); err != nil {
		return err
	}
	if peer[0] != 0xff || peer[9] != 0x7f || peer[10] < 3 {
		return errPeer
	}
	if _, err := c.Write(appendFrame(nil, flagCommand, ready("PUB"))); err != nil {
		return err
	}
	flags, body, err := readFrame(r)
	if err != nil {
		return err
	}
	if flags&flagCommand == 0 || len(body) < 6 || string(body[1:6]) != "READY" {
		return errPeer
	}
	return nil
}

// ready is a READY command's body with one property, Socket-Type.
func ready(socketType string) []byte {
	b := append([]byte{5}, "READY"...)
	b = append(append(b, 11), "Socket-Type"...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(socketType)))
	return append(b, socketType...)
}

func appendFrame(b []byte, flags byte, body []byte) []byte {
	if len(body) > 255 {
		b = binary.BigEndian.AppendUint64(append(b, flags|flagLong), uint64(len(body)))
	} else {
		b = append(b, flags, byte(len(body)))
	}
	return append(b, body...)
}

// maxFrame bounds what a subscriber may send: subscriptions and commands are short.
const maxFrame = 4 << 10

func readFrame(r *bufio.Reader) (flags byte, body []byte, err error) {
	if flags, err = r.ReadByte(); err != nil {
		return 0, nil, err
	}
	var n uint64
	if flags&flagLong != 0 {
		var l [8]byte
		if _, err = io.ReadFull(r, l[:]); err != nil {
			return 0, nil, err
		}
		n = binary.BigEndian.Uint64(l[:])
	} else {
		b, err := r.ReadByte()
		if err != nil {
			return 0, nil, err
		}
		n = uint64(b)
	}
	if n > maxFrame {
		return 0, nil, errPeer
	}
	body = make([]byte, n)
	_, err = io.ReadFull(r, body)
	return flags, body, err
}
