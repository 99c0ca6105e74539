package parse

// Precision ranks how much of an absolute instant a timestamp pins down. When a line carries
// several (a docker timestamp, a journald prefix and the engine's own), the highest wins.
type Precision uint8

const (
	PrecNone     Precision = iota
	PrecTime               // "13:02:11": date from the surrounding input
	PrecYearless           // "Nov 20 09:00:01", "11-20 09:00:01": year from the surrounding input
	PrecLocal              // full date in the host's local zone
	PrecAbsolute           // full date with a UTC offset
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

func (s *Stamp) offer(t Stamp) {
	if t.Prec > s.Prec {
		*s = t
	}
}

// clockAt parses "HH:MM:SS" with an optional fraction after '.' or ',' at b[i:].
func clockAt(b []byte, i int, t *Stamp) (int, bool) {
	h, ok1 := twoDigits(b, i)
	m, ok2 := twoDigits(b, i+3)
	s, ok3 := twoDigits(b, i+6)
	if !ok1 || !ok2 || !ok3 || b[i+2] != ':' || b[i+5] != ':' || h > 23 || m > 59 || s > 60 {
		return i, false
	}
	t.Hour, t.Min, t.Sec = h, m, s
	i += 8
	if i < len(b) && (b[i] == '.' || b[i] == ',') && i+1 < len(b) && isDigit(b[i+1]) {
		i++
		scale, nano := 100000000, 0
		for ; i < len(b) && isDigit(b[i]); i++ {
			nano += int(b[i]-'0') * scale
			scale /= 10
		}
		t.Nano = nano
	}
	return i, true
}

// dateAt parses "YYYY-MM-DD" at b[i:].
func dateAt(b []byte, i int, t *Stamp) (int, bool) {
	y, ok1 := digitsAt(b, i, 4)
	mo, ok2 := twoDigits(b, i+5)
	d, ok3 := twoDigits(b, i+8)
	if !ok1 || !ok2 || !ok3 || b[i+4] != '-' || b[i+7] != '-' || !validDate(mo, d) {
		return i, false
	}
	t.Year, t.Month, t.Day = y, mo, d
	return i + 10, true
}

func validDate(mo, d int) bool { return mo >= 1 && mo <= 12 && d >= 1 && d <= 31 }

// dateTimeAt parses "YYYY-MM-DD HH:MM:SS[.frac]" (or with 'T') at b[i:].
func dateTimeAt(b []byte, i int, t *Stamp) (int, bool) {
	j, ok := dateAt(b, i, t)
	if !ok || j >= len(b) || (b[j] != ' ' && b[j] != 'T') {
		return i, false
	}
	j, ok = clockAt(b, j+1, t)
	if !ok {
		return i, false
	}
	t.Prec = PrecLocal
	return j, true
}

// zoneAt parses "Z", "+0000" or "+00:00" after a date-time and makes t absolute.
func zoneAt(b []byte, i int, t *Stamp) (int, bool) {
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
	hh, ok := twoDigits(b, i+1)
	if !ok {
		return i, false
	}
	j := i + 3
	if j < len(b) && b[j] == ':' {
		j++
	}
	mm, ok := twoDigits(b, j)
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

// syslogStampAt parses journalctl's short forms "Nov 20 09:00:01" and "Nov  2 09:00:01.123456".
func syslogStampAt(b []byte, i int, t *Stamp) (int, bool) {
	if i+15 > len(b) || b[i+3] != ' ' {
		return i, false
	}
	mo := month(b[i : i+3])
	if mo == 0 {
		return i, false
	}
	var d int
	if b[i+4] == ' ' {
		v, ok := digitsAt(b, i+5, 1)
		if !ok {
			return i, false
		}
		d = v
	} else {
		v, ok := twoDigits(b, i+4)
		if !ok {
			return i, false
		}
		d = v
	}
	if !validDate(mo, d) || b[i+6] != ' ' {
		return i, false
	}
	t.Month, t.Day = mo, d
	j, ok := clockAt(b, i+7, t)
	if !ok {
		return i, false
	}
	t.Prec = PrecYearless
	return j, true
}

// vllmStampAt parses vLLM's year-less "11-20 09:00:01[.123]".
func vllmStampAt(b []byte, i int, t *Stamp) (int, bool) {
	mo, ok1 := twoDigits(b, i)
	d, ok2 := twoDigits(b, i+3)
	if !ok1 || !ok2 || b[i+2] != '-' || i+5 >= len(b) || b[i+5] != ' ' || !validDate(mo, d) {
		return i, false
	}
	t.Month, t.Day = mo, d
	j, ok := clockAt(b, i+6, t)
	if !ok {
		return i, false
	}
	t.Prec = PrecYearless
	return j, true
}
