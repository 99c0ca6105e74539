package stamp

import "github.com/specwatch/specwatch/parse/internal/lex"

// maxMinuteDigits bounds a since-start stamp's minutes: seven digits are 19 years of uptime,
// and the bound keeps every sum of stamps far from overflowing (see Clock).
const maxMinuteDigits = 7

// SinceStartAt parses llama.cpp's prefix "M.SS.mmm.uuu L " at b[i:] (common/log.cpp): the
// minutes (unpadded, never wrapping into hours), seconds, milliseconds and microseconds since
// the process started, then the level letter (I, W, E or D) and a blank or the line's end. The
// level is part of the shape because it keeps an IPv4 address that starts a line
// ("10.12.123.111 - -") from passing for a stamp. It returns where the message starts.
func SinceStartAt(b []byte, i int, t *Stamp) (int, bool) {
	j, minutes := i, 0
	for j < len(b) && j-i < maxMinuteDigits && lex.IsDigit(b[j]) {
		minutes = minutes*10 + int(b[j]-'0')
		j++
	}
	if j == i || j+13 > len(b) {
		return i, false
	}
	c := b[j : j+13] // ".SS.mmm.uuu L"
	s0, s1 := c[1]-'0', c[2]-'0'
	m0, m1, m2 := c[4]-'0', c[5]-'0', c[6]-'0'
	u0, u1, u2 := c[8]-'0', c[9]-'0', c[10]-'0'
	if c[0] != '.' || c[3] != '.' || c[7] != '.' || c[11] != ' ' || s0 > 5 || s1 > 9 ||
		m0 > 9 || m1 > 9 || m2 > 9 || u0 > 9 || u1 > 9 || u2 > 9 || !isLevel(c[12]) {
		return i, false
	}
	j += 13
	if j < len(b) && b[j] != ' ' {
		return i, false
	}
	t.Min, t.Sec = minutes, int(s0)*10+int(s1)
	t.Nano = (int(m0)*100000 + int(m1)*10000 + int(m2)*1000 + int(u0)*100 + int(u1)*10 + int(u2)) * 1000
	t.Prec = PrecRelative
	if j < len(b) {
		j++
	}
	return j, true
}

func isLevel(c byte) bool { return c == 'I' || c == 'W' || c == 'E' || c == 'D' }

// MaxSinceStart bounds a since-start time in microseconds, wherever it comes from (a text
// stamp reaches 10^7 minutes, 6·10^14 µs): larger is not a stamp.
const MaxSinceStart = 1 << 50

// SinceStart is the stamp of a line written micros after the engine started (--log-jsonl's
// "time"). micros must be in [0, MaxSinceStart].
func SinceStart(micros int64) Stamp {
	return Stamp{Min: int(micros / 60e6), Sec: int(micros / 1e6 % 60), Nano: int(micros%1e6) * 1000, Prec: PrecRelative}
}

// Micros is a PrecRelative stamp's time since the engine started.
func (s *Stamp) Micros() int64 {
	return (int64(s.Min)*60+int64(s.Sec))*1e6 + int64(s.Nano)/1000
}

// Clock follows one input's since-start stamps through restarts of the engine, as the time
// elapsed since its first run started. A stamp below the one before it starts a new run (a
// process's stamps never go back; a new process's begin again near zero), which is taken to
// have started right at the previous line: where it really started is not in the log, and no
// earlier start keeps time from going backwards. The zero value is ready.
type Clock struct {
	last     int64 // the latest stamp, µs since its run started
	offset   int64 // µs from the first run's start to the current run's
	Lines    int64 // stamps taken
	Restarts int64
}

// maxOffset saturates the runs' sum (a hostile input alternating the largest stamp and zero):
// 142 years, so that offset plus a stamp plus any representable Unix time fits an int64 of µs.
const maxOffset = 1 << 52

// Add takes the next line's stamp (µs since its run started, at most MaxSinceStart) and
// returns the time elapsed since the first run started.
func (c *Clock) Add(micros int64) int64 {
	if c.Lines > 0 && micros < c.last {
		c.offset = min(c.offset+c.last, maxOffset)
		c.Restarts++
	}
	c.last = micros
	c.Lines++
	return c.offset + micros
}

// Elapsed is the latest line's time since the first run started: after the whole input, its
// span, restarts included.
func (c *Clock) Elapsed() int64 { return c.offset + c.last }
