package parse

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/sample"
)

// malformed records why a marked line failed and returns Malformed.
func malformed(s *Record, why string) sample.Result {
	s.Why = why
	return sample.Malformed
}

// set stores a field, failing the line on a repeated key (two records glued together).
func set(s *Record, f sample.Field, v float64) bool { return !s.Set(f, v) }

// afterLead skips the lead words of a line ("Decode batch", an iteration counter "[1234]") and
// the '.' or ',' that older and newer versions put after them.
func afterLead(b []byte, lead int) (int, bool) {
	i := lead
	if i < len(b) && b[i] == ' ' && i+1 < len(b) && b[i+1] == '[' {
		j := bytes.IndexByte(b[i:], ']')
		if j < 0 {
			return 0, false
		}
		for _, c := range b[i+2 : i+j] {
			if !lex.IsDigit(c) {
				return 0, false
			}
		}
		i += j + 1
	}
	if i < len(b) && (b[i] == ',' || b[i] == '.' || b[i] == ':') {
		return i + 1, true
	}
	return 0, false
}

// sglangDecode parses a "Decode batch" line (every era and pool variant).
func sglangDecode(b []byte, s *Record) sample.Result {
	i, ok := afterLead(b, len("Decode batch"))
	if !ok {
		return malformed(s, "decode: no separator after lead")
	}
	s.Kind = sample.KindDecode
	if !readLayout(b, i, decodeLayouts[:], s) {
		it := lex.Fields{B: b, Pos: i, Sep: ','}
		if r := readFields(&it, s, &decodeRecord); r != sample.Matched {
			return r
		}
	}
	// A line cut mid-way (130-column splits) loses its tail: #queue-req ends every known version.
	if !s.Has(sample.Running) || !s.Has(sample.GenTPS) || !s.Has(sample.Queue) {
		return malformed(s, "decode: missing #running-req, gen throughput or #queue-req")
	}
	return sample.Matched
}

var decodeRecord = fieldRecord{fragment: "decode: fragment without key", bad: "decode: bad value", dup: "decode: duplicated key", reader: readDecode}

// decodeField reads one field of the record; see fieldReader.
func decodeField(key, val []byte) (f sample.Field, x float64, ok, known bool) {
	f, v := decodeKey(key)
	return readValue(f, v, val)
}

// decodeKey names the field a decode record's key carries and how its value reads (noValue:
// a key specwatch does not read). Layouts resolve their keys with it once, at start-up.
func decodeKey(key []byte) (sample.Field, valueKind) {
	switch string(key) {
	case "#running-req":
		return sample.Running, intValue
	case "#queue-req":
		return sample.Queue, intValue
	case "#token", "#full token":
		return sample.Context, intValue
	case "#gpu token":
		// Hierarchical cache: GPU-resident KV is what the attention step reads.
		return sample.Context, intValue
	case "token usage", "full token usage":
		return sample.TokenUsage, rateValue
	case "accept len":
		return sample.Commit, commitValue
	case "accept rate":
		return sample.AcceptRate, rateValue
	case "cuda graph", "cpu graph", "npu graph":
		return sample.Graph, boolValue
	case "gen throughput (token/s)":
		return sample.GenTPS, numberValue
	case "#cached-token":
		return sample.CachedTokens, intValue
	case "#retracted-req":
		return sample.Retracted, intValue
	}
	return 0, noValue // unknown or informational: order-free, extras tolerated
}

// valueKind is how a field's value reads.
type valueKind uint8

const (
	noValue     valueKind = iota // not read
	intValue                     // integer
	rateValue                    // rate
	commitValue                  // commitLen (0.00: no figure)
	boolValue                    // boolean
	numberValue                  // wholeNumber
)

// readValue reads val as kind says, for field f; see fieldReader.
func readValue(f sample.Field, kind valueKind, val []byte) (sample.Field, float64, bool, bool) {
	var x float64
	var ok bool
	switch kind {
	case intValue:
		x, ok = lex.Integer(val)
	case rateValue:
		x, ok = lex.Rate(val)
	case commitValue:
		var absent bool
		x, absent, ok = commitLen(val)
		if absent {
			return 0, 0, false, false
		}
	case boolValue:
		x, ok = lex.Boolean(val)
	case numberValue:
		x, ok = lex.WholeNumber(val)
	default:
		return 0, 0, false, false
	}
	return f, x, ok, true
}

// sglangPrefill parses "Prefill batch, ..." and the 2024 "new fill batch. #seq: 2. ..." line.
func sglangPrefill(b []byte, lead int, sep byte, s *Record) sample.Result {
	i, ok := afterLead(b, lead)
	if !ok {
		return malformed(s, "prefill: no separator after lead")
	}
	s.Kind = sample.KindPrefill
	if sep != ',' || !readLayout(b, i, prefillLayouts[:], s) {
		it := lex.Fields{B: b, Pos: i, Sep: sep}
		if r := readFields(&it, s, &prefillRecord); r != sample.Matched {
			return r
		}
	}
	if !s.Has(sample.NewTokens) || !s.Has(sample.NewSeqs) {
		return malformed(s, "prefill: missing #new-seq or #new-token")
	}
	return sample.Matched
}

var prefillRecord = fieldRecord{fragment: "prefill: fragment without key", bad: "prefill: bad value", dup: "prefill: duplicated key", reader: readPrefill}

// prefillField reads one field of the record; see fieldReader.
func prefillField(key, val []byte) (f sample.Field, x float64, ok, known bool) {
	f, v := prefillKey(key)
	return readValue(f, v, val)
}

// prefillKey is decodeKey for prefill records.
func prefillKey(key []byte) (sample.Field, valueKind) {
	switch string(key) {
	case "#new-seq", "#seq":
		return sample.NewSeqs, intValue
	case "#new-token", "#new_token":
		return sample.NewTokens, intValue
	case "#cached-token", "#cached_token":
		return sample.CachedTokens, intValue
	case "#running-req", "#running_req":
		return sample.Running, intValue
	case "#queue-req", "#remaining_req":
		return sample.Queue, intValue
	case "token usage":
		return sample.TokenUsage, rateValue
	case "input throughput (token/s)":
		return sample.PromptTPS, numberValue
	}
	return 0, noValue
}

// sglangRetract parses "... Retract requests. #retracted_reqs: 3, #new_token_ratio: 0.4 -> 0.7".
func sglangRetract(b []byte, s *Record) sample.Result {
	s.Kind, s.Event = sample.KindEvent, sample.EventRetract
	it := lex.Fields{B: b, Sep: ','}
	for {
		key, val, more := it.Next()
		if !more {
			break
		}
		if string(key) == "#retracted_reqs" {
			x, ok := lex.Integer(val)
			if !ok {
				return malformed(s, "retract: bad value")
			}
			if !set(s, sample.Retracted, x) {
				return malformed(s, "retract: duplicated key")
			}
		}
	}
	if !s.Has(sample.Retracted) {
		return malformed(s, "retract: missing #retracted_reqs")
	}
	return sample.Matched
}
