package containerlog

// ParseTime reads an RFC 3339 time with an optional fraction of up to nine digits and a zone
// of Z or ±hh:mm, as Docker (UTC, trailing zeros trimmed), containerd (UTC) and CRI-O (nine
// digits, the node's offset) write it, into Unix microseconds. It allocates nothing: the
// time.Parse of a string copy cost more than the rest of a line's decoding.
func ParseTime(b []byte) (int64, bool) {
	if len(b) < len("2006-01-02T15:04:05Z") {
		return 0, false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for k := i; k < i+n; k++ {
			c := b[k]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	if b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != 't') || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	h, ok4 := num(11, 2)
	mi, ok5 := num(14, 2)
	s, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) ||
		h > 23 || mi > 59 || s > 60 {
		return 0, false
	}
	i := 19
	micros := 0
	if i < len(b) && b[i] == '.' {
		i++
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			if n < 6 {
				micros = micros*10 + int(b[i]-'0')
			}
			n++
			i++
		}
		if n == 0 || n > 9 {
			return 0, false
		}
		for k := n; k < 6; k++ {
			micros *= 10
		}
	}
	if i == len(b) {
		return 0, false
	}
	off := 0
	switch b[i] {
	case 'Z', 'z':
		i++
	case '+', '-':
		if len(b)-i != 6 || b[i+3] != ':' {
			return 0, false
		}
		oh, ok1 := num(i+1, 2)
		om, ok2 := num(i+4, 2)
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return 0, false
		}
		off = oh*3600 + om*60
		if b[i] == '-' {
			off = -off
		}
		i += 6
	default:
		return 0, false
	}
	if i != len(b) {
		return 0, false
	}
	days := daysFromCivil(y, mo, d)
	secs := int64(days)*86400 + int64(h*3600+mi*60+s) - int64(off)
	return secs*1e6 + int64(micros), true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's method).
func daysFromCivil(y, m, d int) int {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}
