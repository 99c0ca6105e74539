// Package stamp reads the timestamps engines and log shippers write before a record, broken down
// so that year-less and date-less forms can be completed from context later, without a clock.
package stamp

import "github.com/specwatch/specwatch/parse/internal/lex"

// Precision ranks how much of an absolute instant a timestamp pins down. When a line carries
// several (a docker timestamp, a journald prefix and the engine's own), the highest wins.
type Precision uint8

const (
	PrecNone Precision = iota
	// PrecRelative is a time since the engine started (llama.cpp's "0.05.071.041"): Min, Sec
	// and Nano hold it, and only an anchor from outside the line makes it a date (Stream).
	PrecRelative
	PrecTime     // "13:02:11": date from the surrounding input
	PrecYearless // "Nov 20 09:00:01", "11-20 09:00:01": year from the surrounding input
	PrecLocal    // full date in the host's local zone
	PrecAbsolute // full date with a UTC offset
)

// Stamp is a timestamp as written, broken down, so that year-less and date-less forms can be
// completed from context later without parse needing a clock.
type Stamp struct {
	Year                       int
	Month, Day, Hour, Min, Sec int
	Nano                       int
	Offset                     int // seconds east of UTC, for PrecAbsolute
	Prec                       Precision
}

func (s *Stamp) Offer(t Stamp) {
	if t.Prec > s.Prec {
		*s = t
	}
}

// ClockAt parses "HH:MM:SS" with an optional fraction after '.' or ',' at b[i:].
//
// ClockAt and DateAt check their bounds once and read their fixed-width digits from one
// subslice, rather than through a bounds-checked call per part: on the chatty corpus, whose
// sample lines carry two date-times each, they were 219 M of analyze's 3,721 M instructions,
// 133 M after (analyze 3,721 → 3,635 M; mixed corpus 2,528 → 2,500 M; cachegrind).
func ClockAt(b []byte, i int, t *Stamp) (int, bool) {
	if i < 0 || i+8 > len(b) {
		return i, false
	}
	c := b[i : i+8]
	h0, h1, m0, m1, s0, s1 := c[0]-'0', c[1]-'0', c[3]-'0', c[4]-'0', c[6]-'0', c[7]-'0'
	if h0 > 9 || h1 > 9 || m0 > 9 || m1 > 9 || s0 > 9 || s1 > 9 || c[2] != ':' || c[5] != ':' {
		return i, false
	}
	h, m, s := int(h0)*10+int(h1), int(m0)*10+int(m1), int(s0)*10+int(s1)
	if h > 23 || m > 59 || s > 60 {
		return i, false
	}
	t.Hour, t.Min, t.Sec = h, m, s
	i += 8
	if i < len(b) && (b[i] == '.' || b[i] == ',') && i+1 < len(b) && lex.IsDigit(b[i+1]) {
		i++
		scale, nano := 100000000, 0
		for ; i < len(b) && lex.IsDigit(b[i]); i++ {
			nano += int(b[i]-'0') * scale
			scale /= 10
		}
		t.Nano = nano
	}
	return i, true
}

// DateAt parses "YYYY-MM-DD" at b[i:].
func DateAt(b []byte, i int, t *Stamp) (int, bool) {
	if i < 0 || i+10 > len(b) {
		return i, false
	}
	c := b[i : i+10]
	y0, y1, y2, y3 := c[0]-'0', c[1]-'0', c[2]-'0', c[3]-'0'
	mo0, mo1, d0, d1 := c[5]-'0', c[6]-'0', c[8]-'0', c[9]-'0'
	if y0 > 9 || y1 > 9 || y2 > 9 || y3 > 9 || mo0 > 9 || mo1 > 9 || d0 > 9 || d1 > 9 || c[4] != '-' || c[7] != '-' {
		return i, false
	}
	mo, d := int(mo0)*10+int(mo1), int(d0)*10+int(d1)
	if !validDate(mo, d) {
		return i, false
	}
	t.Year, t.Month, t.Day = int(y0)*1000+int(y1)*100+int(y2)*10+int(y3), mo, d
	return i + 10, true
}

func validDate(mo, d int) bool { return mo >= 1 && mo <= 12 && d >= 1 && d <= 31 }

// DateTimeAt parses "YYYY-MM-DD HH:MM:SS[.frac]" (or with 'T') at b[i:].
func DateTimeAt(b []byte, i int, t *Stamp) (int, bool) {
	j, ok := DateAt(b, i, t)
	if !ok || j >= len(b) || (b[j] != ' ' && b[j] != 'T') {
		return i, false
	}
	j, ok = ClockAt(b, j+1, t)
	if !ok {
		return i, false
	}
	t.Prec = PrecLocal
	return j, true
}

// ZoneAt parses "Z", "+0000" or "+00:00" after a date-time and makes t absolute.
func ZoneAt(b []byte, i int, t *Stamp) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	if b[i] == 'Z' {
		t.Prec, t.Offset = PrecAbsolute, 0
		return i + 1, true
	}
	if b[i] != '+' && b[i] != '-' {
		return i, false
	}
	hh, ok := lex.TwoDigits(b, i+1)
	if !ok {
		return i, false
	}
	j := i + 3
	if j < len(b) && b[j] == ':' {
		j++
	}
	mm, ok := lex.TwoDigits(b, j)
	if !ok || hh > 14 || mm > 59 {
		return i, false
	}
	off := hh*3600 + mm*60
	if b[i] == '-' {
		off = -off
	}
	t.Prec, t.Offset = PrecAbsolute, off
	return j + 2, true
}

// month numbers an English month abbreviation ("Nov": 11), or returns 0. A switch, not a loop
// over the names: it runs on the prefix of every journalctl line.
func month(abbr []byte) int {
	switch string(abbr) {
	case "Jan":
		return 1
	case "Feb":
		return 2
	case "Mar":
		return 3
	case "Apr":
		return 4
	case "May":
		return 5
	case "Jun":
		return 6
	case "Jul":
		return 7
	case "Aug":
		return 8
	case "Sep":
		return 9
	case "Oct":
		return 10
	case "Nov":
		return 11
	case "Dec":
		return 12
	}
	return 0
}

// SyslogAt parses journalctl's short forms "Nov 20 09:00:01" and "Nov  2 09:00:01.123456".
func SyslogAt(b []byte, i int, t *Stamp) (int, bool) {
	if i+15 > len(b) || b[i+3] != ' ' {
		return i, false
	}
	mo := month(b[i : i+3])
	if mo == 0 {
		return i, false
	}
	var d int
	if b[i+4] == ' ' {
		v, ok := lex.DigitsAt(b, i+5, 1)
		if !ok {
			return i, false
		}
		d = v
	} else {
		v, ok := lex.TwoDigits(b, i+4)
		if !ok {
			return i, false
		}
		d = v
	}
	if !validDate(mo, d) || b[i+6] != ' ' {
		return i, false
	}
	t.Month, t.Day = mo, d
	j, ok := ClockAt(b, i+7, t)
	if !ok {
		return i, false
	}
	t.Prec = PrecYearless
	return j, true
}

// VLLMAt parses vLLM's year-less "11-20 09:00:01[.123]".
func VLLMAt(b []byte, i int, t *Stamp) (int, bool) {
	mo, ok1 := lex.TwoDigits(b, i)
	d, ok2 := lex.TwoDigits(b, i+3)
	if !ok1 || !ok2 || b[i+2] != '-' || i+5 >= len(b) || b[i+5] != ' ' || !validDate(mo, d) {
		return i, false
	}
	t.Month, t.Day = mo, d
	j, ok := ClockAt(b, i+6, t)
	if !ok {
		return i, false
	}
	t.Prec = PrecYearless
	return j, true
}

// SlashAt parses the date-time of Python's logging with datefmt "%m/%d/%Y-%H:%M:%S",
// "11/20/2026-09:00:01", which TensorRT-LLM's logger puts in brackets before every line
// (tensorrt_llm/logger.py): local time, whole seconds.
func SlashAt(b []byte, i int, t *Stamp) (int, bool) {
	if i < 0 || i+19 > len(b) {
		return i, false
	}
	mo, ok1 := lex.TwoDigits(b, i)
	d, ok2 := lex.TwoDigits(b, i+3)
	y, ok3 := lex.DigitsAt(b, i+6, 4)
	if !ok1 || !ok2 || !ok3 || b[i+2] != '/' || b[i+5] != '/' || b[i+10] != '-' || !validDate(mo, d) {
		return i, false
	}
	j, ok := ClockAt(b, i+11, t)
	if !ok {
		return i, false
	}
	t.Year, t.Month, t.Day, t.Prec = y, mo, d, PrecLocal
	return j, true
}
