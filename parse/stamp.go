package parse

import (
	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/parse/internal/stamp"
)

// Stamp is a timestamp as written, broken down (see parse/internal/stamp, which reads them).
type Stamp = stamp.Stamp

// Precision ranks how much of an absolute instant a Stamp pins down.
type Precision = stamp.Precision

const (
	PrecNone     = stamp.PrecNone
	PrecRelative = stamp.PrecRelative // time since the engine started: never a date by itself
	PrecTime     = stamp.PrecTime
	PrecYearless = stamp.PrecYearless
	PrecLocal    = stamp.PrecLocal
	PrecAbsolute = stamp.PrecAbsolute
)

// Clock follows an input's since-start stamps through engine restarts (stamp.Clock has the
// rule); Stream keeps one, and analyze runs one over a whole file first to learn its span.
type Clock = stamp.Clock

// MaxSinceStart bounds a since-start time in microseconds; larger is not a stamp.
const MaxSinceStart = stamp.MaxSinceStart

// SinceStartStamp is the stamp of a line written micros after the engine started, as
// llama.cpp's --log-jsonl states it ("time"). micros must be in [0, MaxSinceStart].
func SinceStartStamp(micros int64) Stamp { return stamp.SinceStart(micros) }

// LeadSinceStart reads the since-start stamp that starts a line ("0.05.071.041 I …", after
// blanks and colour codes) in microseconds. It runs on every line that carries no time of its
// own, matched or not, so that a restart is seen on whichever line shows it: the first byte
// rules out nearly every other line.
func LeadSinceStart(line []byte) (int64, bool) {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i < len(line) && !lex.IsDigit(line[i]) {
		if line[i] != 0x1b {
			return 0, false
		}
		return colouredSinceStart(line[i:])
	}
	var t Stamp
	if _, ok := stamp.SinceStartAt(line, i, &t); ok {
		return t.Micros(), true
	}
	return 0, false
}

// colouredSinceStart reads the stamp of a line llama.cpp wrote in colour (a terminal, or
// --log-colors): its first bytes without the escape sequences, copied to the stack.
func colouredSinceStart(line []byte) (int64, bool) {
	var buf [32]byte
	n := 0
	for i := 0; i < len(line) && n < len(buf); i++ {
		if line[i] == 0x1b && i+1 < len(line) && line[i+1] == '[' {
			j := i + 2
			for j < len(line) && (lex.IsDigit(line[j]) || line[j] == ';') {
				j++
			}
			if j < len(line) && line[j] == 'm' {
				i = j
				continue
			}
		}
		buf[n] = line[i]
		n++
	}
	var t Stamp
	if _, ok := stamp.SinceStartAt(buf[:n], 0, &t); ok {
		return t.Micros(), true
	}
	return 0, false
}
