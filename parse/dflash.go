package parse

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/sample"
)

// verifyDone reads SGLang's summary of a DFlash or DDTree worker's first verify step, logged
// once at start-up by rank 0 (an event, kept out of the acceptance figures). Its list names
// what each request of that step accepted; the key says whether the bonus token is in:
//
//	DDTREE verify completed. num_correct_drafts_per_req=[3, 2, 5]      (drafts; also accept_length_per_req, num_accepted_drafts_per_req)
//	DFLASH_DDTREE verify completed. commit_lens=[4, 3, 6]              (drafts + the bonus token)
func verifyDone(b []byte, s *Record) sample.Result {
	s.Kind, s.Event = sample.KindEvent, sample.EventVerifyDone
	j := bytes.Index(b, []byte("=["))
	if j < 0 {
		return sample.Matched // a summary without a list
	}
	bonus := 0.0
	switch string(lex.KeyBefore(b[:j])) {
	case "num_correct_drafts_per_req", "accept_length_per_req", "num_accepted_drafts_per_req":
		bonus = 1
	case "commit_lens":
	default:
		return sample.Matched // a list of something else: the event, no figures
	}
	sum, lo, n, _, ok := lex.List(b[j+1:], '[', ']', nil)
	if !ok || n == 0 || lo+bonus < 1 || bonus+sum/float64(n) > maxCommit {
		return malformed(s, "verify summary: bad per-request list")
	}
	reqs := float64(n)
	s.Set(sample.Running, reqs)
	s.Set(sample.Accepted, sum-(1-bonus)*reqs)
	s.Set(sample.Commit, bonus+sum/reqs)
	return sample.Matched
}

// dflashAccept reads the acceptance line of SGLang-JAX's DFlash worker (with
// SGLANG_DFLASH_DEBUG_ACCEPT or profiling on), once per verify step; accept_len leaves the
// bonus token out, out_tokens counts it:
//
//	[DFLASH accept] bs=4 block=16 accept_len(mean=1.750 p50=1.5 p90=3.0) out_tokens(mean=2.750)
func dflashAccept(b []byte, s *Record) sample.Result {
	s.Kind = sample.KindDecode
	out, found := valueOf(b, "out_tokens(mean=")
	if !found {
		return malformed(s, "dflash accept: missing out_tokens")
	}
	c, absent, ok := commitLen(out)
	if ok && !absent {
		s.Set(sample.Commit, c)
	}
	if v, found := valueOf(b, "accept_len(mean="); found {
		x, good := lex.WholeNumber(v)
		ok = ok && good && x <= 64 && set(s, sample.AcceptedDrafts, x)
	}
	if !ok || !intAfter(b, " bs=", sample.Running, s) || !intAfter(b, " block=", sample.BlockSize, s) {
		return malformed(s, "dflash accept: bad value")
	}
	return sample.Matched
}

// dflashProfile reads the DFlash profiling line. SGLang's CUDA build prints milliseconds
// (total_ms, read with the key=value aliases); SGLang-JAX prints seconds with their unit:
//
//	[DFLASH profile] bs=4 block=16 kv_commit=0.002s draft=0.011s verify=0.085s total=0.101s
func (p *Parser) dflashProfile(b []byte, s *Record) sample.Result {
	if r, _ := keyValues(b, s, p.opts.Aliases); r != sample.Matched {
		return r
	}
	if v, found := valueOf(b, " total="); found {
		x, ok := stepSeconds(Alias{Field: sample.StepSeconds}, v)
		if !ok || !set(s, sample.StepSeconds, x) {
			return malformed(s, "dflash profile: bad total")
		}
	}
	if !intAfter(b, " block=", sample.BlockSize, s) {
		return malformed(s, "dflash profile: bad block")
	}
	if !s.Has(sample.StepSeconds) {
		return malformed(s, "dflash profile: missing total")
	}
	if s.Kind == sample.KindNone {
		s.Kind = sample.KindDecode
	}
	return sample.Matched
}

// valueOf finds key (which ends with '=') in b and returns the value after it.
func valueOf(b []byte, key string) ([]byte, bool) {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return nil, false
	}
	return lex.ValueAt(b[i+len(key):]), true
}

// intAfter sets f from the integer after key, when the line has key; it fails on a bad value.
func intAfter(b []byte, key string, f sample.Field, s *Record) bool {
	v, found := valueOf(b, key)
	if !found {
		return true
	}
	x, ok := lex.Integer(v)
	return ok && !s.Has(f) && set(s, f, x)
}
