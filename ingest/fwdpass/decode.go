package fwdpass

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Message is one ForwardPassMetrics as the engines publish it (vLLM
// vllm/v1/metrics/forward_pass_metrics.py, SGLang
// python/sglang/srt/observability/forward_pass_metrics.py; docs/formats.md): a msgspec Struct,
// which msgspec's msgpack encoder writes as a map of field name to value (Structs are arrays
// only with array_like=True, which neither engine sets), the nested blocks likewise.
type Message struct {
	// Version is the schema's (1); 0 when absent (SGLang before it added the field).
	Version int64
	// WorkerID points into the payload: valid until the connection's next message.
	WorkerID []byte
	DPRank   int64
	// CounterID is the publisher's sequence number (from 0 at its start, heartbeats included);
	// HasCounter is false for SGLang builds before the field.
	CounterID  uint64
	HasCounter bool
	// TimingScope says what WallTime spans (vLLM: "execute_model_cuda"); empty from SGLang.
	TimingScope []byte
	// WallTime is the iteration's duration in seconds (0 in a heartbeat).
	WallTime  float64
	Scheduled Requests // the requests of this forward pass
	Queued    Requests // the requests waiting once it completed
}

// Requests is a ScheduledRequestMetrics or QueuedRequestMetrics block (the queued block has no
// sum_prefill_kv_tokens). Counts are float64, as samples hold them.
type Requests struct {
	NumPrefill       float64 // num_prefill_requests
	SumPrefillTokens float64 // sum_prefill_tokens: tokens computed this pass (cache hits excluded)
	VarPrefillLength float64 // var_prefill_length: population variance of the prompt lengths
	SumPrefillKV     float64 // sum_prefill_kv_tokens: tokens already in the KV cache (prefix hits, earlier chunks)
	NumDecode        float64 // num_decode_requests
	SumDecodeKV      float64 // sum_decode_kv_tokens: the KV length of every decode request, summed
	VarDecodeKV      float64 // var_decode_kv_tokens
}

// Heartbeat reports whether m is the publisher's idle heartbeat (or any message that ran no
// request): the engines send one after a second without an iteration, every field at its
// default but worker_id, dp_rank and counter_id.
func (m *Message) Heartbeat() bool { return m.Scheduled.NumPrefill == 0 && m.Scheduled.NumDecode == 0 }

var errFormat = errors.New("not a ForwardPassMetrics message")

// maxDepth bounds the nesting of values skipped (unknown keys): the schema's is 2.
const maxDepth = 8

// Decode reads a msgpack ForwardPassMetrics into m, which it resets. Unknown keys are skipped
// (a later schema's additions); a known key of the wrong type, a truncated or trailing payload,
// or a top level that is not a map is an error. It does not allocate.
func Decode(b []byte, m *Message) error {
	*m = Message{}
	d := decoder{b: b}
	n, ok := d.mapLen()
	if !ok {
		return fmt.Errorf("%w: the top level is not a map", errFormat)
	}
	for range n {
		key, ok := d.str()
		if !ok {
			return fmt.Errorf("%w: a key is not a string", errFormat)
		}
		switch string(key) { // no allocation: the compiler compares in place
		case "version":
			v, ok := d.int()
			if !ok {
				return fieldError("version")
			}
			m.Version = v
		case "worker_id":
			if m.WorkerID, ok = d.strOrNil(); !ok {
				return fieldError("worker_id")
			}
		case "dp_rank":
			if m.DPRank, ok = d.int(); !ok {
				return fieldError("dp_rank")
			}
		case "counter_id":
			v, ok := d.int()
			if !ok || v < 0 {
				return fieldError("counter_id")
			}
			m.CounterID, m.HasCounter = uint64(v), true
		case "timing_scope":
			if m.TimingScope, ok = d.strOrNil(); !ok {
				return fieldError("timing_scope")
			}
		case "wall_time":
			if m.WallTime, ok = d.num(); !ok {
				return fieldError("wall_time")
			}
		case "scheduled_requests":
			if err := d.requests(&m.Scheduled); err != nil {
				return err
			}
		case "queued_requests":
			if err := d.requests(&m.Queued); err != nil {
				return err
			}
		default:
			if !d.skip(0) {
				return fmt.Errorf("%w: key %q: damaged value", errFormat, key)
			}
		}
	}
	if d.i != len(d.b) {
		return fmt.Errorf("%w: %d bytes after the message", errFormat, len(d.b)-d.i)
	}
	return nil
}

func fieldError(name string) error { return fmt.Errorf("%w: %s has the wrong type", errFormat, name) }

func (d *decoder) requests(r *Requests) error {
	n, ok := d.mapLen()
	if !ok {
		return fmt.Errorf("%w: a request block is not a map", errFormat)
	}
	for range n {
		key, ok := d.str()
		if !ok {
			return fmt.Errorf("%w: a key is not a string", errFormat)
		}
		var dst *float64
		switch string(key) {
		case "num_prefill_requests":
			dst = &r.NumPrefill
		case "sum_prefill_tokens":
			dst = &r.SumPrefillTokens
		case "var_prefill_length":
			dst = &r.VarPrefillLength
		case "sum_prefill_kv_tokens":
			dst = &r.SumPrefillKV
		case "num_decode_requests":
			dst = &r.NumDecode
		case "sum_decode_kv_tokens":
			dst = &r.SumDecodeKV
		case "var_decode_kv_tokens":
			dst = &r.VarDecodeKV
		default:
			if !d.skip(0) {
				return fmt.Errorf("%w: key %q: damaged value", errFormat, key)
			}
			continue
		}
		v, ok := d.num()
		if !ok || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s is not a count", errFormat, key)
		}
		*dst = v
	}
	return nil
}

// decoder reads msgpack (github.com/msgpack/msgpack/blob/master/spec.md) from b at i: the types
// the schema uses, and the others only to skip them.
type decoder struct {
	b []byte
	i int
}

func (d *decoder) byte() (byte, bool) {
	if d.i >= len(d.b) {
		return 0, false
	}
	c := d.b[d.i]
	d.i++
	return c, true
}

// take returns the next n bytes.
func (d *decoder) take(n int) ([]byte, bool) {
	if n < 0 || n > len(d.b)-d.i {
		return nil, false
	}
	s := d.b[d.i : d.i+n]
	d.i += n
	return s, true
}

// uint reads a big-endian unsigned integer of n bytes.
func (d *decoder) uint(n int) (uint64, bool) {
	s, ok := d.take(n)
	if !ok {
		return 0, false
	}
	var v uint64
	for _, c := range s {
		v = v<<8 | uint64(c)
	}
	return v, true
}

func (d *decoder) mapLen() (int, bool) {
	c, ok := d.byte()
	switch {
	case !ok:
		return 0, false
	case c&0xf0 == 0x80:
		return int(c & 0x0f), true
	case c == 0xde:
		n, ok := d.uint(2)
		return int(n), ok
	case c == 0xdf:
		n, ok := d.uint(4)
		return int(n), ok && n <= uint64(len(d.b)) // every entry takes 2 bytes at least
	}
	return 0, false
}

func (d *decoder) str() ([]byte, bool) {
	c, ok := d.byte()
	if !ok {
		return nil, false
	}
	return d.strBody(c)
}

// strOrNil reads a string, or nil (an Optional[str] left unset).
func (d *decoder) strOrNil() ([]byte, bool) {
	if d.i < len(d.b) && d.b[d.i] == 0xc0 {
		d.i++
		return nil, true
	}
	return d.str()
}

func (d *decoder) strBody(c byte) ([]byte, bool) {
	var n uint64
	ok := true
	switch {
	case c&0xe0 == 0xa0:
		n = uint64(c & 0x1f)
	case c == 0xd9:
		n, ok = d.uint(1)
	case c == 0xda:
		n, ok = d.uint(2)
	case c == 0xdb:
		n, ok = d.uint(4)
	default:
		return nil, false
	}
	if !ok || n > maxFrame {
		return nil, false
	}
	return d.take(int(n))
}

// int reads an integer of any width that fits an int64.
func (d *decoder) int() (int64, bool) {
	c, ok := d.byte()
	if !ok {
		return 0, false
	}
	switch {
	case c <= 0x7f:
		return int64(c), true
	case c >= 0xe0:
		return int64(int8(c)), true
	case c >= 0xcc && c <= 0xcf:
		v, ok := d.uint(1 << (c - 0xcc))
		return int64(v), ok && v <= math.MaxInt64
	case c >= 0xd0 && c <= 0xd3:
		n := 1 << (c - 0xd0)
		v, ok := d.uint(n)
		shift := 64 - 8*n
		return int64(v<<shift) >> shift, ok // sign-extended
	}
	return 0, false
}

// num reads a number, integer or float, as a float64.
func (d *decoder) num() (float64, bool) {
	if d.i >= len(d.b) {
		return 0, false
	}
	switch d.b[d.i] {
	case 0xca:
		d.i++
		s, ok := d.take(4)
		if !ok {
			return 0, false
		}
		return float64(math.Float32frombits(binary.BigEndian.Uint32(s))), true
	case 0xcb:
		d.i++
		s, ok := d.take(8)
		if !ok {
			return 0, false
		}
		return math.Float64frombits(binary.BigEndian.Uint64(s)), true
	}
	v, ok := d.int()
	return float64(v), ok
}

// skip passes over one value of any type.
func (d *decoder) skip(depth int) bool {
	if depth > maxDepth {
		return false
	}
	c, ok := d.byte()
	if !ok {
		return false
	}
	var n uint64 // bytes to skip, or elements for arrays and maps
	switch {
	case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3:
		return true
	case c&0xe0 == 0xa0, c == 0xd9, c == 0xda, c == 0xdb:
		_, ok := d.strBody(c)
		return ok
	case c&0xf0 == 0x90:
		return d.skipN(uint64(c&0x0f), depth)
	case c&0xf0 == 0x80:
		return d.skipN(2*uint64(c&0x0f), depth)
	case c == 0xdc || c == 0xdd:
		k, ok := d.uint(2 << (c - 0xdc))
		return ok && d.skipN(k, depth)
	case c == 0xde || c == 0xdf:
		k, ok := d.uint(2 << (c - 0xde))
		return ok && d.skipN(2*k, depth)
	case c >= 0xc4 && c <= 0xc6: // bin 8/16/32
		n, ok = d.uint(1 << (c - 0xc4))
	case c >= 0xcc && c <= 0xcf:
		n = 1 << (c - 0xcc)
	case c >= 0xd0 && c <= 0xd3:
		n = 1 << (c - 0xd0)
	case c == 0xca:
		n = 4
	case c == 0xcb:
		n = 8
	case c >= 0xd4 && c <= 0xd8: // fixext 1 .. 16: a type byte and the data
		n = 1 + 1<<(c-0xd4)
	case c >= 0xc7 && c <= 0xc9: // ext 8/16/32
		n, ok = d.uint(1 << (c - 0xc7))
		n++
	default: // 0xc1, never used
		return false
	}
	if !ok || n > uint64(len(d.b)-d.i) {
		return false
	}
	d.i += int(n)
	return true
}

func (d *decoder) skipN(k uint64, depth int) bool {
	if k > uint64(len(d.b)-d.i) { // every value takes a byte at least
		return false
	}
	for range k {
		if !d.skip(depth + 1) {
			return false
		}
	}
	return true
}
