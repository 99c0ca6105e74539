package fwdpass

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// The engines publish on a ZeroMQ PUB socket; this is the subscribing end of the wire protocol,
// ZMTP 3.0 (rfc.zeromq.org/spec/23) with the NULL mechanism, and nothing else of ZeroMQ: one
// connection, the greeting, the READY handshake, one subscription to every topic, then frames.
// Why not a ZeroMQ library is in docs/formats.md ("Forward-pass metrics"): a SUB needs a small
// part of one; this one reads a socket only when polled (a wake-up per poll, not per message,
// which at 800 messages a second is the difference between 0.2 % and 3 % of a core), notices a
// silent publisher by the heartbeat it owes, and does not allocate per message.
//
// We announce 3.0, so that a 3.1 publisher (libzmq 4.2 on, pyzmq) takes our subscription as the
// 3.0 message "\x01" + prefix and sends no PING commands; commands it sends anyway are skipped.

// maxFrame bounds one frame: an engine's message is a few hundred bytes; a peer that announces
// more is not an engine's publisher (or is damaged), and its connection is dropped.
const maxFrame = 8 << 10

// maxFrames bounds the frames of one message (the engines send three).
const maxFrames = 4

// bufSize is a connection's read buffer: a whole message at the bounds, and the messages of a
// poll interval (200 a second of ~470 bytes, 100 ms: 9.4 kB) many times over; what does not fit
// waits in the socket's buffer for the next read.
const bufSize = 64 << 10

var errProtocol = errors.New("not a ZMTP 3 PUB peer")

// greeting is our 64-byte greeting: signature, version 3.0, mechanism NULL, as-server 0.
var greeting = func() []byte {
	g := make([]byte, 64)
	g[0], g[9], g[10], g[11] = 0xff, 0x7f, 3, 0
	copy(g[12:32], "NULL")
	return g
}()

// ready is our READY command, Socket-Type SUB; subscribe is the subscription to every topic (a
// message of one byte, 1, and an empty prefix).
var (
	ready     = command("READY", "Socket-Type", "SUB")
	subscribe = []byte{0x00, 0x01, 0x01}
)

// command encodes a short command frame with one property.
func command(name, prop, val string) []byte {
	body := []byte{byte(len(name))}
	body = append(body, name...)
	body = append(body, byte(len(prop)))
	body = append(body, prop...)
	body = binary.BigEndian.AppendUint32(body, uint32(len(val)))
	body = append(body, val...)
	return append([]byte{0x04, byte(len(body))}, body...)
}

// conn is one subscribed connection: its bytes in[r:w] are read but not yet parsed, and frames
// locate the parts of the message last parsed, in in.
type conn struct {
	s      *sock
	in     []byte
	r, w   int
	frames [maxFrames][2]int
	n      int
}

// dial connects to a tcp:// ("tcp") or ipc:// ("unix") endpoint and completes the handshake
// within timeout, or until ctx ends.
func dial(ctx context.Context, network, addr string, timeout time.Duration) (*conn, error) {
	deadline := time.Now().Add(timeout)
	s, err := dialSock(ctx, network, addr, deadline)
	if err != nil {
		return nil, err
	}
	z := &conn{s: s, in: make([]byte, bufSize)}
	if err := z.handshake(ctx, deadline); err != nil {
		s.close()
		return nil, err
	}
	return z, nil
}

func (z *conn) Close() error { return z.s.close() }

func (z *conn) handshake(ctx context.Context, deadline time.Time) error {
	if err := z.s.write(ctx, greeting, deadline); err != nil {
		return err
	}
	if err := z.fill(ctx, 64, deadline); err != nil {
		return err
	}
	g := z.in[z.r : z.r+64]
	z.r += 64
	if g[0] != 0xff || g[9] != 0x7f || g[10] < 3 {
		return fmt.Errorf("%w: greeting %x", errProtocol, g[:12])
	}
	if mech := bytes.TrimRight(g[12:32], "\x00"); string(mech) != "NULL" {
		return fmt.Errorf("%w: mechanism %q (only NULL is read)", errProtocol, mech)
	}
	if err := z.s.write(ctx, append(append([]byte{}, ready...), subscribe...), deadline); err != nil {
		return err
	}
	// The peer's READY: its Socket-Type must be a publisher's.
	for {
		flags, body, n, err := frameAt(z.in[z.r:z.w])
		if err != nil {
			return err
		}
		if n == 0 {
			if err := z.fill(ctx, z.w-z.r+1, deadline); err != nil {
				return err
			}
			continue
		}
		z.r += n
		if flags&0x04 == 0 {
			return fmt.Errorf("%w: a message before the handshake", errProtocol)
		}
		if !bytes.HasPrefix(body, []byte("\x05READY")) {
			return fmt.Errorf("%w: first command %q", errProtocol, body[:min(len(body), 16)])
		}
		if t, ok := property(body[6:], "Socket-Type"); !ok || (t != "PUB" && t != "XPUB") {
			return fmt.Errorf("%w: Socket-Type %q", errProtocol, t)
		}
		return nil
	}
}

// fill reads, waiting (the handshake), until at least k bytes are unparsed.
func (z *conn) fill(ctx context.Context, k int, deadline time.Time) error {
	z.compact()
	for z.w-z.r < k {
		if z.w == len(z.in) {
			return fmt.Errorf("%w: a handshake larger than %d bytes", errProtocol, len(z.in))
		}
		n, err := z.s.read(ctx, z.in[z.w:], deadline)
		z.w += n
		if err != nil {
			return err
		}
	}
	return nil
}

// compact moves the unparsed bytes to the front of the buffer: the frames of the message last
// parsed are then no longer valid.
func (z *conn) compact() {
	if z.r > 0 {
		z.w = copy(z.in, z.in[z.r:z.w])
		z.r = 0
	}
}

// errClosed is the publisher's end of the connection.
var errClosed = fmt.Errorf("connection closed by the publisher: %w", io.EOF)

// poll reads what the socket holds without waiting for more, and returns how many bytes.
func (z *conn) poll() (int, error) {
	z.compact()
	total := 0
	for z.w < len(z.in) {
		room := len(z.in) - z.w
		n, err := z.s.readNow(z.in[z.w:])
		z.w += n
		total += n
		if n < room || err != nil {
			return total, err // a read that did not fill the room emptied the socket
		}
	}
	return total, nil
}

// next parses the next whole message of the bytes read: ok is false when they hold none yet.
// The message's parts (part) are valid until the next poll.
func (z *conn) next() (ok bool, err error) {
	p, n := z.r, 0
	for {
		flags, body, size, err := frameAt(z.in[p:z.w])
		if err != nil || size == 0 {
			return false, err
		}
		end := p + size
		start := end - len(body)
		p = end
		if flags&0x04 != 0 {
			if n == 0 {
				z.r = p // a command between messages (PING, a 3.1 peer's): skipped
			}
			continue
		}
		if n == maxFrames {
			return false, fmt.Errorf("%w: a message of more than %d frames", errProtocol, maxFrames)
		}
		z.frames[n] = [2]int{start, end}
		n++
		if flags&0x01 == 0 {
			z.r, z.n = p, n
			return true, nil
		}
	}
}

// frameAt reads the frame at the start of b: its flags, body and length in b (header and body);
// n is 0 when b does not hold all of it yet.
func frameAt(b []byte) (flags byte, body []byte, n int, err error) {
	if len(b) < 2 {
		return 0, nil, 0, nil
	}
	flags = b[0]
	if flags&^0x07 != 0 {
		return 0, nil, 0, fmt.Errorf("%w: frame flags %#x", errProtocol, flags)
	}
	head, size := 2, uint64(b[1])
	if flags&0x02 != 0 {
		if len(b) < 9 {
			return 0, nil, 0, nil
		}
		head, size = 9, binary.BigEndian.Uint64(b[1:9])
	}
	if size > maxFrame {
		return 0, nil, 0, fmt.Errorf("%w: a frame of %d bytes", errProtocol, size)
	}
	if uint64(len(b)-head) < size {
		return 0, nil, 0, nil
	}
	return flags, b[head : head+int(size)], head + int(size), nil
}

// part returns frame i of the message last parsed.
func (z *conn) part(i int) []byte { return z.in[z.frames[i][0]:z.frames[i][1]] }

// property finds a READY property's value (names are case-insensitive).
func property(b []byte, name string) (string, bool) {
	for len(b) > 0 {
		n := int(b[0])
		if len(b) < 1+n+4 {
			return "", false
		}
		k := b[1 : 1+n]
		vn := int(binary.BigEndian.Uint32(b[1+n:]))
		b = b[1+n+4:]
		if vn > len(b) {
			return "", false
		}
		if bytes.EqualFold(k, []byte(name)) {
			return string(b[:vn]), true
		}
		b = b[vn:]
	}
	return "", false
}
