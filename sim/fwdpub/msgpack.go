package fwdpub

import (
	"encoding/binary"
	"math"
)

// Metrics is one ForwardPassMetrics (version 1) as vLLM and SGLang publish it: worker, rank and
// counter are set by the Publisher.
type Metrics struct {
	WallTime  float64 // the iteration's seconds; 0 in the idle heartbeat
	Scheduled Requests
	Queued    Requests
}

// Requests is a scheduled_requests or queued_requests block (queued has no
// sum_prefill_kv_tokens).
type Requests struct {
	NumPrefill, SumPrefillTokens int
	VarPrefillLength             float64
	SumPrefillKV                 int
	NumDecode, SumDecodeKV       int
	VarDecodeKV                  float64
}

// appendMetrics writes m as msgspec's msgpack encoder writes the engines' Struct: a map of field
// name to value in declaration order, ints in their smallest form, floats as float64. vLLM has a
// timing_scope field after counter_id; SGLang does not.
func appendMetrics(b []byte, vllm bool, worker string, dpRank int, counter uint64, m *Metrics) []byte {
	n := 7
	if vllm {
		n = 8
	}
	b = append(b, 0x80|byte(n))
	b = appendStr(appendInt(appendStr(b, "version"), 1), "worker_id")
	b = appendStr(b, worker)
	b = appendInt(appendStr(b, "dp_rank"), uint64(dpRank))
	b = appendInt(appendStr(b, "counter_id"), counter)
	if vllm {
		b = appendStr(appendStr(b, "timing_scope"), "execute_model_cuda")
	}
	b = appendFloat(appendStr(b, "wall_time"), m.WallTime)
	b = appendRequests(appendStr(b, "scheduled_requests"), &m.Scheduled, true)
	return appendRequests(appendStr(b, "queued_requests"), &m.Queued, false)
}

func appendRequests(b []byte, r *Requests, scheduled bool) []byte {
	n := 6
	if scheduled {
		n = 7
	}
	b = append(b, 0x80|byte(n))
	b = appendInt(appendStr(b, "num_prefill_requests"), uint64(r.NumPrefill))
	b = appendInt(appendStr(b, "sum_prefill_tokens"), uint64(r.SumPrefillTokens))
	b = appendFloat(appendStr(b, "var_prefill_length"), r.VarPrefillLength)
	if scheduled {
		b = appendInt(appendStr(b, "sum_prefill_kv_tokens"), uint64(r.SumPrefillKV))
	}
	b = appendInt(appendStr(b, "num_decode_requests"), uint64(r.NumDecode))
	b = appendInt(appendStr(b, "sum_decode_kv_tokens"), uint64(r.SumDecodeKV))
	return appendFloat(appendStr(b, "var_decode_kv_tokens"), r.VarDecodeKV)
}

// appendStr writes a str of up to 255 bytes (every key and value here is shorter).
func appendStr(b []byte, s string) []byte {
	if len(s) < 32 {
		b = append(b, 0xa0|byte(len(s)))
	} else {
		b = append(b, 0xd9, byte(len(s)))
	}
	return append(b, s...)
}

func appendInt(b []byte, v uint64) []byte {
	switch {
	case v < 128:
		return append(b, byte(v))
	case v <= math.MaxUint8:
		return append(b, 0xcc, byte(v))
	case v <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(v))
	case v <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(v))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xcf), v)
}

func appendFloat(b []byte, f float64) []byte {
	return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(f))
}
