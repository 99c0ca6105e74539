package parse

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/parse/internal/stamp"
)

// prefix reads everything the engines, journald and container runtimes put before a record's
// marker: timestamps, host and identifier, rank tags, process tags. Each recogniser applies at
// most once and in any order, because real streams stack them differently (docker timestamp,
// then compose service, then vLLM process tag, then vLLM's own header). Unknown text stops the
// walk: it is free text the engine wrote before the marker, not a prefix.
func prefix(b []byte, s *Sample) {
	var done uint8
	i := 0
	for steps := 0; steps < 8; steps++ {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i >= len(b) {
			return
		}
		var t Stamp
		c := b[i]
		switch {
		case c == '[' && done&fBracket == 0:
			j, ok := sglangTag(b, i+1, s, &t)
			if !ok {
				return
			}
			done |= fBracket
			s.Engine = EngineSGLang
			s.Stamp.Offer(t)
			i = j
		case c == '(' && done&fProc == 0:
			j := bytes.IndexByte(b[i:], ')')
			if j < 0 || !bytes.Contains(b[i:i+j], []byte("pid=")) {
				return
			}
			done |= fProc
			s.Proc = b[i+1 : i+j]
			s.Engine = EngineVLLM
			i += j + 1
		case lex.IsDigit(c):
			j, kind := digitPrefix(b, i, s, &t, done&(fISO|fBracket|fPyLog) != 0)
			switch kind {
			case fISO, fBracket, fPyLog:
				done |= kind
			default:
				// llama.cpp's "0.05.071.041 I ": the time since the engine started.
				t = Stamp{}
				k, ok := stamp.SinceStartAt(b, i, &t)
				if !ok || done&fSince != 0 {
					return
				}
				done |= fSince
				j = k
			}
			s.Stamp.Offer(t)
			i = j
		case done&fSyslog == 0 && c >= 'A' && c <= 'Z':
			if j, ok := stamp.SyslogAt(b, i, &t); ok {
				if j, ok = hostIdent(b, j, s); ok {
					done |= fSyslog
					s.Stamp.Offer(t)
					i = j
					continue
				}
			}
			if j, ok := vllmLevel(b, i, &t); ok && done&fLevel == 0 {
				done |= fLevel
				s.Engine = EngineVLLM
				s.Stamp.Offer(t)
				i = j
				continue
			}
			fallthrough
		default:
			if done&fCompose != 0 {
				return
			}
			j, ok := composeService(b, i, s)
			if !ok {
				return
			}
			done |= fCompose
			i = j
		}
	}
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
func digitPrefix(b []byte, i int, s *Sample, t *Stamp, haveDate bool) (int, uint8) {
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
					s.Engine = EngineSGLang
				case bytes.HasPrefix(b[name:k], []byte("vllm")):
					s.Engine = EngineVLLM
				}
				return k + 2, fPyLog
			}
		}
	}
	// "2026-11-20 09:00:01 TP0] ": an SGLang prefix that lost its '['.
	if k, ok := rankTags(b, j, s); ok && k < len(b) && b[k] == ']' {
		s.Engine = EngineSGLang
		return k + 1, fBracket
	}
	return i, 0
}

// sglangTag parses the inside of SGLang's "[2026-11-20 09:00:01.123 DP3 TP3] ", "[13:02:11 TP0] "
// or "[gpu=0] " starting after the '['.
func sglangTag(b []byte, i int, s *Sample, t *Stamp) (int, bool) {
	if bytes.HasPrefix(b[i:], []byte("gpu=")) {
		j := i + 4
		for j < len(b) && lex.IsDigit(b[j]) {
			j++
		}
		if j == i+4 || j >= len(b) || b[j] != ']' {
			return i, false
		}
		s.Rank = b[i:j]
		return j + 1, true
	}
	j, ok := stamp.DateTimeAt(b, i, t)
	if !ok {
		j, ok = stamp.ClockAt(b, i, t)
		if !ok {
			return i, false
		}
		t.Prec = PrecTime
	}
	j, ok = rankTags(b, j, s)
	if !ok || j >= len(b) || b[j] != ']' {
		return i, false
	}
	return j + 1, true
}

// rankTags reads " DP3 TP3 EP3" (any of DP, PP, TP, EP, ATTN_CP, MOE_DP, ...: upper-case
// letters or '_' followed by digits) and records them as the rank.
func rankTags(b []byte, i int, s *Sample) (int, bool) {
	start := -1
	for i < len(b) && b[i] == ' ' {
		k := i + 1
		letters := k
		for k < len(b) && (b[k] >= 'A' && b[k] <= 'Z' || b[k] == '_') {
			k++
		}
		digits := k
		for k < len(b) && lex.IsDigit(b[k]) {
			k++
		}
		if digits == letters || k == digits {
			break
		}
		if start < 0 {
			start = i + 1
		}
		i = k
	}
	if start >= 0 {
		s.Rank = b[start:i]
	}
	return i, true
}

// identEnd marks the bytes that end a journal identifier: one table look-up per byte instead of
// three comparisons took hostIdent from 247 to 228 instructions per line
// (BenchmarkSGLangDecodeISO; analyze of the chatty corpus 3,478 → 3,470 M; cachegrind).
var identEnd = [256]bool{'[': true, ':': true, ' ': true}

// hostIdent parses journalctl's " gpu07 python3[48211]: " after its timestamp.
func hostIdent(b []byte, i int, s *Sample) (int, bool) {
	if i >= len(b) || b[i] != ' ' {
		return i, false
	}
	h := i + 1
	j := h
	for j < len(b) && b[j] != ' ' {
		j++
	}
	if j == h || j >= len(b) {
		return i, false
	}
	host := b[h:j]
	id := j + 1
	k := id
	for k < len(b) && !identEnd[b[k]] {
		k++
	}
	if k == id || k >= len(b) {
		return i, false
	}
	ident := b[id:k]
	if b[k] == '[' {
		e := bytes.IndexByte(b[k:], ']')
		if e < 0 {
			return i, false
		}
		k += e + 1
	}
	if k+1 >= len(b) || b[k] != ':' || b[k+1] != ' ' {
		return i, false
	}
	s.Host, s.Unit = host, ident
	return k + 2, true
}

var levels = [...]string{"INFO ", "WARNING ", "DEBUG ", "ERROR ", "CRITICAL ", "WARN "}

// vllmLevel parses "INFO 11-20 09:00:01 [loggers.py:271] " and the older
// "INFO 11-20 09:00:01 metrics.py:345] ".
func vllmLevel(b []byte, i int, t *Stamp) (int, bool) {
	var j int
	for _, l := range levels {
		if bytes.HasPrefix(b[i:], []byte(l)) {
			j = i + len(l)
			break
		}
	}
	if j == 0 {
		return i, false
	}
	j, ok := stamp.VLLMAt(b, j, t)
	if !ok || j >= len(b) || b[j] != ' ' {
		return i, false
	}
	e := bytes.IndexByte(b[j:], ']')
	if e < 0 || bytes.IndexByte(b[j:j+e], ':') < 0 {
		return i, false
	}
	j += e + 1
	if j < len(b) && b[j] == ' ' {
		j++
	}
	return j, true
}

// composeService parses docker-compose's "vllm-1  | ".
func composeService(b []byte, i int, s *Sample) (int, bool) {
	j := i
	for j < len(b) && (lex.IsWordByte(b[j]) || b[j] == '-') {
		j++
	}
	if j == i {
		return i, false
	}
	k := j
	for k < len(b) && b[k] == ' ' {
		k++
	}
	if k == j || k >= len(b) || b[k] != '|' {
		return i, false
	}
	if len(s.Unit) == 0 {
		s.Unit = b[i:j]
	}
	return k + 1, true
}
