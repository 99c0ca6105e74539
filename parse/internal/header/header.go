// Package header reads what the engines, journald and container runtimes put before a record's
// marker. It is pure byte logic apart from the Sink it fills, so that package parse keeps only
// the records themselves.
package header

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/parse/internal/stamp"
)

// Sink points at the caller's sample fields that a prefix fills: the walk writes them in place,
// which measured faster than filling a struct the caller copies in and out (BenchmarkPrefixISO).
type Sink struct {
	Stamp                  *stamp.Stamp
	Host, Unit, Rank, Proc *[]byte
}

// Engine is the engine a prefix names, if any; the caller maps it to its own engine type.
type Engine uint8

const (
	Unknown Engine = iota
	SGLang
	VLLM
	TRTLLM
)

// Read walks the prefix of b: timestamps, host and identifier, rank tags, process tags. Each
// recogniser applies at most once and in any order, because real streams stack them differently
// (docker timestamp, then compose service, then vLLM process tag, then vLLM's own header).
// Unknown text stops the walk: it is free text the engine wrote before the marker, not a prefix.
// It returns the engine the last recogniser that named one named (Unknown: none did). The Sink
// is passed by value: by pointer, BenchmarkVLLMEngine took 11 % longer (its fields were read
// back from the caller's frame right after the caller wrote them there).
func Read(b []byte, sink Sink) Engine {
	s := &sink
	var done uint8
	var engine Engine
	i := 0
	for steps := 0; steps < 8; steps++ {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i >= len(b) {
			return engine
		}
		var t stamp.Stamp
		c := b[i]
		switch {
		case c == '[' && done&fBracket == 0:
			j, ok := sglangTag(b, i+1, s, &t)
			e := SGLang
			if !ok {
				t = stamp.Stamp{}
				if j, ok = trtTags(b, i, s, &t); !ok {
					return engine
				}
				e = TRTLLM
			}
			done |= fBracket
			engine = e
			offer(s.Stamp, &t)
			i = j
		case c == '(' && done&fProc == 0:
			j := bytes.IndexByte(b[i:], ')')
			if j < 0 || !bytes.Contains(b[i:i+j], []byte("pid=")) {
				return engine
			}
			done |= fProc
			*s.Proc = b[i+1 : i+j]
			engine = VLLM
			i += j + 1
		case lex.IsDigit(c):
			j, kind := digitPrefix(b, i, s, &t, &engine, done&(fISO|fBracket|fPyLog) != 0)
			switch kind {
			case fISO, fBracket, fPyLog:
				done |= kind
			default:
				// llama.cpp's "0.05.071.041 I ": the time since the engine started.
				t = stamp.Stamp{}
				k, ok := stamp.SinceStartAt(b, i, &t)
				if !ok || done&fSince != 0 {
					return engine
				}
				done |= fSince
				j = k
			}
			offer(s.Stamp, &t)
			i = j
		case done&fSyslog == 0 && c >= 'A' && c <= 'Z':
			if j, ok := stamp.SyslogAt(b, i, &t); ok {
				if j, ok = hostIdent(b, j, s); ok {
					done |= fSyslog
					offer(s.Stamp, &t)
					i = j
					continue
				}
			}
			if j, ok := vllmLevel(b, i, &t); ok && done&fLevel == 0 {
				done |= fLevel
				engine = VLLM
				offer(s.Stamp, &t)
				i = j
				continue
			}
			fallthrough
		default:
			if done&fCompose != 0 {
				return engine
			}
			j, ok := composeService(b, i, s)
			if !ok {
				return engine
			}
			done |= fCompose
			i = j
		}
	}
	return engine
}

// Prefix recognisers, as bits of the set already applied.
const (
	fISO uint8 = 1 << iota
	fSyslog
	fCompose
	fProc
	fLevel
	fBracket
	fPyLog
	fSince
)

// digitPrefix handles the prefixes that start with a date: docker's RFC 3339 timestamp,
// journalctl short-iso (date, host, identifier), Python's logging layout and an SGLang
// bracket whose '[' was lost.
func digitPrefix(b []byte, i int, s *Sink, t *stamp.Stamp, engine *Engine, haveDate bool) (int, uint8) {
	if haveDate {
		return i, 0
	}
	j, ok := stamp.DateTimeAt(b, i, t)
	if !ok {
		return i, 0
	}
	if b[i+10] == 'T' {
		k, ok := stamp.ZoneAt(b, j, t)
		if !ok {
			return i, 0
		}
		// journalctl short-iso writes "+0000"; docker writes "Z" and no host.
		if b[j] == 'Z' {
			return k, fISO
		}
		if k, ok2 := hostIdent(b, k, s); ok2 {
			return k, fISO
		}
		if k < len(b) && b[k] == ' ' {
			return k, fISO
		}
		return i, 0
	}
	// "2026-06-07 11:20:05,102 [INFO] sglang.srt.managers.x: "
	if j+2 < len(b) && b[j] == ' ' && b[j+1] == '[' {
		end := bytes.IndexByte(b[j:], ']')
		if end > 0 {
			k := j + end + 1
			if k < len(b) && b[k] == ' ' {
				k++
			}
			name := k
			for k < len(b) && b[k] != ':' && b[k] != ' ' {
				k++
			}
			if k+1 < len(b) && b[k] == ':' && b[k+1] == ' ' {
				switch {
				case bytes.HasPrefix(b[name:k], []byte("sglang")):
					*engine = SGLang
				case bytes.HasPrefix(b[name:k], []byte("vllm")):
					*engine = VLLM
				}
				return k + 2, fPyLog
			}
		}
	}
	// "2026-11-20 09:00:01 TP0] ": an SGLang prefix that lost its '['.
	if k, ok := rankTags(b, j, s); ok && k < len(b) && b[k] == ']' {
		*engine = SGLang
		return k + 1, fBracket
	}
	return i, 0
}

// offer is stamp.Stamp.Offer taking t by pointer: the by-value t was copied whole first, and
// that copy of the fields just written cost the walk 13 % (BenchmarkPrefixISO 56 → 63 ns).
func offer(dst, t *stamp.Stamp) {
	if t.Prec > dst.Prec {
		*dst = *t
	}
}
