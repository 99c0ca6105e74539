package parse

import (
	"bytes"
	"strconv"

	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/parse/internal/stamp"
	"github.com/specwatch/specwatch/sample"
)

// TensorRT-LLM's iteration log (print_iter_log; PyExecutor._profiler's profile_step in
// tensorrt_llm/_torch/pyexecutor/py_executor.py): one line per executor iteration, from rank 0
// unless TLLM_PROFILE_LOG_RANKS names others (docs/formats.md, "TensorRT-LLM iteration log").
// Its generations, each "key = value" joined by ", ", states last but in the newest:
//
//	iter = 12, …, kv_cache_util = 0.031, …, states = {…}, num_active = 4, num_fetched = 0, num_dummy = 0, num_unscheduled = 0
//	iter = 12, global_rank = 0, rank = 0, num_scheduled_requests = 4, kv_cache_util = 0.031, currank_total_requests = 9/9, host_step_time = 25.06399154663086ms, prev_device_step_time = 24.9ms, timestamp = 2026-11-20 09:00:01, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 16}
//	iter = 12, global_rank = 0, rank = 0, currank_total_requests = 9/9, host_step_time = 25.1ms, prev_device_step_time = N/A, timestamp = …, num_scheduled_requests: 4, states = {…}
//	iter = 12, global_rank = 0, rank = 0, currank_total_requests = 9/9, elapsed_time = 0.0251s, timestamp = …, num_scheduled_requests: 4, states = {…}
//
// Its marker is "iter = N, global_rank = ", which every generation prints: a line with it that
// cannot be read whole is malformed.

// trtIterLead finds where the record starts before the marker at: "iter = " and the iteration
// number right before ", global_rank = ". Without them the body sees the bare marker and
// ignores the line.
func trtIterLead(b []byte, at int) int {
	d := at
	for d > 0 && lex.IsDigit(b[d-1]) {
		d--
	}
	if d == at || !bytes.HasSuffix(b[:d], []byte("iter = ")) {
		return at
	}
	return d - len("iter = ")
}

// Keys of the iteration line, as bits of the set read.
const (
	tkIter uint16 = 1 << iota
	tkGlobal
	tkRank
	tkSched
	tkKV
	tkTotal
	tkHost
	tkDevice
	tkElapsed
	tkStamp
	tkDummyCtx
	tkDummyGen
	tkStates
	tkDummies
)

// trtIter is one iteration line's figures before they become a Sample.
type trtIter struct {
	seen                               uint16
	sched, dummyCtx, dummyGen, dummies float64
	ctxReqs, ctxTokens, genTokens      float64
	step, kv                           float64
	hasKV                              bool
	global                             []byte
}

// trtIteration reads an iteration line from "iter = ". A decode sample when the iteration ran
// no context (prefill) request, a prefill sample when it did (its step time is then not a
// decode step's): Running is the generation requests, StepSeconds the host step time, KVUsage
// kv_cache_util, Drafted and SpecSteps the draft tokens the generation requests carried.
func trtIteration(b []byte, s *Record) sample.Result {
	if !bytes.HasPrefix(b, []byte("iter = ")) {
		return sample.Ignored // the marker without its iteration number: not the line
	}
	var it trtIter
	for i := 0; i < len(b); {
		k := i
		for k < len(b) && (b[k] >= 'a' && b[k] <= 'z' || b[k] == '_') {
			k++
		}
		key := b[i:k]
		switch {
		case k == i:
			return malformed(s, "trtllm iteration: fragment without key")
		case bytes.HasPrefix(b[k:], []byte(" = ")):
			k += len(" = ")
		case bytes.HasPrefix(b[k:], []byte(": ")):
			k += len(": ")
		default:
			return malformed(s, "trtllm iteration: key without value")
		}
		e := bytes.Index(b[k:], []byte(", "))
		if string(key) == "states" { // a dict of counts, whose ", " do not end it
			e = bytes.IndexByte(b[k:], '}') + 1
			if e == 0 || it.seen&tkStates != 0 {
				return malformed(s, "trtllm iteration: states is not a whole {…}, or twice")
			}
			it.seen |= tkStates
			if why := it.states(b[k : k+e]); why != "" {
				return malformed(s, why)
			}
			if k+e < len(b) && !bytes.HasPrefix(b[k+e:], []byte(", ")) {
				return malformed(s, "trtllm iteration: text after states")
			}
		} else if e < 0 {
			e = len(b) - k
		}
		if why := it.field(key, b[k:k+e], s); why != "" {
			return malformed(s, why)
		}
		i = k + e + len(", ")
	}
	return it.sample(s)
}

// field reads one "key = value" of the line; unknown keys are tolerated (versions add them:
// adp_dummy_*_tokens came in 2026).
func (it *trtIter) field(key, v []byte, s *Record) string {
	var bit uint16
	var ok bool
	var x float64
	switch string(key) {
	case "iter":
		bit = tkIter
		_, ok = lex.Integer(v)
	case "global_rank":
		bit = tkGlobal
		_, ok = lex.Integer(v)
		it.global = v
	case "rank":
		bit = tkRank
		_, ok = lex.Integer(v)
	case "num_scheduled_requests":
		bit = tkSched
		it.sched, ok = lex.Integer(v)
	case "kv_cache_util":
		bit = tkKV
		if ok = string(v) == "N/A"; !ok { // no KV cache manager, or an empty pool
			it.kv, ok = lex.WholeNumber(v)
			ok, it.hasKV = ok && it.kv <= 1, true
		}
	case "currank_total_requests":
		bit = tkTotal
		j := bytes.IndexByte(v, '/')
		if j >= 0 {
			_, ok1 := lex.Integer(v[:j])
			_, ok2 := lex.Integer(v[j+1:])
			ok = ok1 && ok2
		}
	case "host_step_time":
		bit = tkHost
		x, ok = pyFloatUnit(v, "ms")
		it.step = x / 1000
	case "prev_device_step_time": // the previous iteration's GPU time: checked, not kept
		bit = tkDevice
		if ok = string(v) == "N/A"; !ok { // the first iteration
			_, ok = pyFloatDigits(v, "ms")
		}
	case "elapsed_time": // builds before host_step_time
		bit = tkElapsed
		it.step, ok = pyFloatUnit(v, "s")
	case "timestamp":
		bit = tkStamp
		var t stamp.Stamp
		var j int
		if j, ok = stamp.DateTimeAt(v, 0, &t); ok && j == len(v) {
			s.Stamp.Offer(t) // local time, as the logger's own prefix: the first one read wins
		}
		ok = ok && j == len(v)
	case "adp_dummy_ctx_tokens":
		bit = tkDummyCtx
		it.dummyCtx, ok = lex.Integer(v)
	case "adp_dummy_gen_tokens":
		bit = tkDummyGen
		it.dummyGen, ok = lex.Integer(v)
	case "num_dummy": // dummy requests among the scheduled ones (profiling.py, after states)
		bit = tkDummies
		it.dummies, ok = lex.Integer(v)
	default:
		return ""
	}
	switch {
	case !ok:
		return "trtllm iteration: bad value"
	case it.seen&bit != 0:
		return "trtllm iteration: duplicated key"
	}
	it.seen |= bit
	return ""
}

// states reads the model engine's iter_states dict, "{'num_ctx_requests': 0, 'num_ctx_tokens':
// 0, 'num_generation_tokens': 16}", which ends the line; other keys are tolerated.
func (it *trtIter) states(v []byte) string {
	if len(v) < 2 || v[0] != '{' || v[len(v)-1] != '}' {
		return "trtllm iteration: states is not a whole {…}"
	}
	v = v[1 : len(v)-1]
	var seen uint8
	for len(v) > 0 {
		e := bytes.Index(v, []byte(", "))
		item := v
		if e >= 0 {
			item, v = v[:e], v[e+len(", "):]
		} else {
			v = nil
		}
		j := bytes.Index(item, []byte("': "))
		if len(item) < 2 || item[0] != '\'' || j < 1 {
			return "trtllm iteration: bad states entry"
		}
		var dst *float64
		var bit uint8
		switch string(item[1:j]) {
		case "num_ctx_requests":
			dst, bit = &it.ctxReqs, 1
		case "num_ctx_tokens":
			dst, bit = &it.ctxTokens, 2
		case "num_generation_tokens":
			dst, bit = &it.genTokens, 4
		default:
			continue
		}
		x, ok := lex.Integer(item[j+len("': "):])
		if !ok || seen&bit != 0 {
			return "trtllm iteration: bad states value"
		}
		*dst, seen = x, seen|bit
	}
	if seen != 7 {
		return "trtllm iteration: states lacks num_ctx_requests, num_ctx_tokens or num_generation_tokens"
	}
	return ""
}

// sample checks that the line was whole and fills s.
func (it *trtIter) sample(s *Record) sample.Result {
	const need = tkIter | tkGlobal | tkRank | tkSched | tkStates
	switch {
	case it.seen&need != need:
		return malformed(s, "trtllm iteration: missing iter, global_rank, rank, num_scheduled_requests or states")
	case it.seen&(tkHost|tkElapsed) == 0 || it.seen&(tkHost|tkElapsed) == tkHost|tkElapsed:
		return malformed(s, "trtllm iteration: not one of host_step_time and elapsed_time")
	}
	gen := it.sched - it.ctxReqs - it.dummies // generation requests
	// Under attention DP a rank without work runs a dummy request so that the collectives line
	// up: an iteration that ran only those tokens ran no request.
	dummy := it.dummyCtx + it.dummyGen
	if dummy > 0 && dummy >= it.ctxTokens+it.genTokens {
		gen, it.ctxReqs, it.genTokens = 0, 0, 0
	}
	switch {
	case gen < 0:
		return malformed(s, "trtllm iteration: more context and dummy requests than scheduled ones")
	case it.genTokens < gen:
		return malformed(s, "trtllm iteration: fewer generation tokens than generation requests")
	}
	s.Kind = sample.KindDecode
	if it.ctxReqs > 0 {
		s.Kind = sample.KindPrefill
		s.Set(sample.NewSeqs, it.ctxReqs)
		s.Set(sample.NewTokens, it.ctxTokens)
	}
	s.Set(sample.Running, gen)
	s.Set(sample.StepSeconds, it.step)
	if it.hasKV {
		s.Set(sample.KVUsage, it.kv)
	}
	if gen > 0 {
		// Each generation request runs one token plus its draft (model_engine.py's
		// num_generation_tokens): what is left are the drafts, none when speculation is off.
		drafted := it.genTokens - gen
		s.Set(sample.Drafted, drafted)
		s.Set(sample.SpecSteps, drafted/gen)
	}
	s.Rank = nil
	if !isZeroRank(it.global) {
		s.Rank = it.global // rank 0 is the server's own series: see header.trtTags
	}
	return sample.Matched
}

func isZeroRank(d []byte) bool {
	for _, c := range d {
		if c != '0' {
			return false
		}
	}
	return true
}

// pyFloatUnit reads a Python float's repr followed by unit ("25.06399154663086ms"). Python
// prints up to 17 significant digits, more than lex.Number takes, so the digits are checked
// here and converted by strconv, which then meets no error (whose value would allocate).
// Exponents, which repr uses below 1e-4, are refused: no step is that short.
func pyFloatUnit(v []byte, unit string) (float64, bool) {
	d, ok := pyFloatDigits(v, unit)
	if !ok {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(d), 64)
	return x, err == nil
}

// pyFloatDigits checks that v is digits with at most one inner '.', then unit, and returns the
// number's bytes.
func pyFloatDigits(v []byte, unit string) ([]byte, bool) {
	if !bytes.HasSuffix(v, []byte(unit)) {
		return nil, false
	}
	v = v[:len(v)-len(unit)]
	dot := -1
	for i, c := range v {
		switch {
		case lex.IsDigit(c):
		case c == '.' && dot < 0 && i > 0:
			dot = i
		default:
			return nil, false
		}
	}
	return v, len(v) > 0 && len(v) <= 32 && dot != len(v)-1
}
