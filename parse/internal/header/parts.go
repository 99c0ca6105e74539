package header

import (
	"bytes"

	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/parse/internal/stamp"
)

// sglangTag parses the inside of SGLang's "[2026-11-20 09:00:01.123 DP3 TP3] ", "[13:02:11 TP0] "
// or "[gpu=0] " starting after the '['.
func sglangTag(b []byte, i int, s *Sink, t *stamp.Stamp) (int, bool) {
	if bytes.HasPrefix(b[i:], []byte("gpu=")) {
		j := i + 4
		for j < len(b) && lex.IsDigit(b[j]) {
			j++
		}
		if j == i+4 || j >= len(b) || b[j] != ']' {
			return i, false
		}
		*s.Rank = b[i:j]
		return j + 1, true
	}
	j, ok := stamp.DateTimeAt(b, i, t)
	if !ok {
		j, ok = stamp.ClockAt(b, i, t)
		if !ok {
			return i, false
		}
		t.Prec = stamp.PrecTime
	}
	j, ok = rankTags(b, j, s)
	if !ok || j >= len(b) || b[j] != ']' {
		return i, false
	}
	return j + 1, true
}

// rankTags reads " DP3 TP3 EP3" (any of DP, PP, TP, EP, ATTN_CP, MOE_DP, ...: upper-case
// letters or '_' followed by digits) and records them as the rank.
func rankTags(b []byte, i int, s *Sink) (int, bool) {
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
		*s.Rank = b[start:i]
	}
	return i, true
}

// identEnd marks the bytes that end a journal identifier: one table look-up per byte instead of
// three comparisons took hostIdent from 247 to 228 instructions per line
// (BenchmarkSGLangDecodeISO; analyze of the chatty corpus 3,478 → 3,470 M; cachegrind).
var identEnd = [256]bool{'[': true, ':': true, ' ': true}

// hostIdent parses journalctl's " gpu07 python3[48211]: " after its timestamp.
func hostIdent(b []byte, i int, s *Sink) (int, bool) {
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
	*s.Host, *s.Unit = host, ident
	return k + 2, true
}

var levels = [...]string{"INFO ", "WARNING ", "DEBUG ", "ERROR ", "CRITICAL ", "WARN "}

// vllmLevel parses "INFO 11-20 09:00:01 [loggers.py:271] " and the older
// "INFO 11-20 09:00:01 metrics.py:345] ".
func vllmLevel(b []byte, i int, t *stamp.Stamp) (int, bool) {
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
func composeService(b []byte, i int, s *Sink) (int, bool) {
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
	if len(*s.Unit) == 0 {
		*s.Unit = b[i:j]
	}
	return k + 1, true
}
