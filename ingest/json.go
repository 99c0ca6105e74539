package ingest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// nextJSON reads `journalctl -o json` (one object per line; json-seq's leading RS is skipped).
// A hand-written scanner keeps the hot path free of allocation, which encoding/json is not.
//
// Field rules, following what journalctl prints:
//   - a string is the value;
//   - an array of numbers 0..255 is a byte string (journalctl's form for values with invalid
//     UTF-8 or control codes such as ANSI colours);
//   - an array of strings or byte arrays is a field the entry holds several times: the first
//     value is taken, for MESSAGE too, so that JSON and export input agree;
//   - null is a value journalctl left out (over 4096 bytes without --all): for MESSAGE it is
//     an empty message, counted in Stats.NullMessages;
//   - any other value of a field we need is ignored, as if the field were absent.
//
// Of repeated keys the first wins. A line that is not one valid object, or an object with none
// of MESSAGE, __CURSOR and __REALTIME_TIMESTAMP, is counted bad and skipped. A line cut short
// (at MaxLineBytes, or by the end of the stream) is still an entry when its MESSAGE was whole.
func (r *Reader) nextJSON(e *Entry) error {
	for {
		line, end, err := r.readLine()
		if err != nil {
			return err
		}
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // a byte-order mark
		for len(line) > 0 && line[0] == 0x1e {                // json-seq's separator
			line = line[1:]
		}
		s := jsonScanner{b: line}
		s.ws()
		if s.i == len(s.b) {
			continue // blank lines carry nothing and are not damage
		}
		var f jsonFields
		err = r.scanObject(&s, &f)
		if err == errJSONEnd && end != endNewline && f.has&hasMsg != 0 {
			err = nil
		}
		if err != nil || f.has&(hasMsg|hasCursor|hasTime) == 0 {
			r.stats.Bad++
			continue
		}
		if f.null {
			r.stats.NullMessages++
		}
		*e = Entry{Time: f.time, Host: f.host, Unit: f.unit, Message: f.msg, Cursor: f.cursor}
		if len(f.unit) == 0 {
			e.Unit = f.ident
		}
		r.stats.Entries++
		return nil
	}
}

// Bits of jsonFields.has; hostname and identifier only decide among themselves.
const (
	hasMsg = 1 << iota
	hasCursor
	hasTime
	hasUnit
	hasHost
	hasIdent
)

type jsonFields struct {
	has                            int
	null                           bool
	time                           int64
	msg, host, unit, ident, cursor []byte
}

var (
	errJSONSyntax = errors.New("json syntax")
	errJSONEnd    = errors.New("json cut short")
)

// maxJSONDepth bounds nesting in skipped values; journalctl nests two levels at most.
const maxJSONDepth = 64

func (r *Reader) scanObject(s *jsonScanner, f *jsonFields) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return s.atEnd()
	}
	for {
		s.ws()
		key, kb, err := s.str(r.key)
		r.key = kb
		if err != nil {
			return err
		}
		s.ws()
		if err := s.expect(':'); err != nil {
			return err
		}
		s.ws()
		if err := r.scanField(s, f, key); err != nil {
			return err
		}
		s.ws()
		if s.i == len(s.b) {
			return errJSONEnd
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return s.atEnd()
		default:
			return errJSONSyntax
		}
	}
}

func (r *Reader) scanField(s *jsonScanner, f *jsonFields, key []byte) error {
	var bit int
	var dst *[]byte
	switch string(key) {
	case "MESSAGE":
		bit, dst = hasMsg, &r.msg
	case "_HOSTNAME":
		bit, dst = hasHost, &r.host
	case "_SYSTEMD_UNIT":
		bit, dst = hasUnit, &r.unit
	case "SYSLOG_IDENTIFIER":
		bit, dst = hasIdent, &r.ident
	case "__CURSOR":
		bit, dst = hasCursor, &r.cursor
	case "__REALTIME_TIMESTAMP":
		bit, dst = hasTime, &r.num
	default:
		return s.skip(0)
	}
	if f.has&bit != 0 {
		return s.skip(0)
	}
	val, buf, kind, err := s.field(*dst)
	*dst = buf
	if err != nil || kind == fieldOther {
		return err
	}
	switch bit {
	case hasMsg:
		f.msg, f.null = val, kind == fieldNull
	case hasHost:
		f.host = val
	case hasUnit:
		f.unit = val
	case hasIdent:
		f.ident = val
	case hasCursor:
		f.cursor = val
	case hasTime:
		t, ok := parseMicros(val)
		if !ok {
			return nil // a damaged timestamp: parse takes the time from the line instead
		}
		f.time = t
	}
	f.has |= bit
	return nil
}

// parseMicros reads a non-negative decimal count of microseconds.
func parseMicros(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// jsonScanner walks one line; b is never modified.
type jsonScanner struct {
	b []byte
	i int
}

func (s *jsonScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScanner) expect(c byte) error {
	if s.i == len(s.b) {
		return errJSONEnd
	}
	if s.b[s.i] != c {
		return errJSONSyntax
	}
	s.i++
	return nil
}

// atEnd accepts only trailing white space after the object.
func (s *jsonScanner) atEnd() error {
	s.ws()
	if s.i != len(s.b) {
		return errJSONSyntax
	}
	return nil
}

type fieldKind uint8

const (
	fieldString fieldKind = iota
	fieldBytes
	fieldNull
	fieldOther
)

// field reads a value of a field we need: see nextJSON for the rules. The value points into
// the line or into dst; the returned buffer is dst, possibly grown, to keep for reuse.
func (s *jsonScanner) field(dst []byte) ([]byte, []byte, fieldKind, error) {
	if s.i == len(s.b) {
		return nil, dst, fieldOther, errJSONEnd
	}
	switch s.b[s.i] {
	case '"':
		v, dst, err := s.str(dst)
		return v, dst, fieldString, err
	case 'n':
		return nil, dst, fieldNull, s.literal("null")
	case '[':
	default:
		return nil, dst, fieldOther, s.skip(0)
	}
	s.i++
	s.ws()
	if s.i == len(s.b) {
		return nil, dst, fieldOther, errJSONEnd
	}
	var v []byte
	kind := fieldOther
	var err error
	switch c := s.b[s.i]; {
	case c == ']':
		s.i++
		return dst[:0], dst, fieldBytes, nil
	case c == '"':
		v, dst, err = s.str(dst)
		kind = fieldString
	case c == '[':
		s.i++
		v, dst, kind, err = s.byteArray(dst)
	case c == '-' || c >= '0' && c <= '9':
		// The outer array is itself the byte string: its ']' ends it.
		return s.byteArray(dst)
	default:
		err = s.skip(1)
	}
	if err != nil {
		return nil, dst, fieldOther, err
	}
	// Further values of a repeated field are skipped.
	if err := s.skipRest(1); err != nil {
		return nil, dst, fieldOther, err
	}
	return v, dst, kind, nil
}

// byteArray reads numbers up to and including ']' (the '[' is consumed). Numbers that are not
// bytes make it fieldOther; the array is still consumed.
func (s *jsonScanner) byteArray(dst []byte) ([]byte, []byte, fieldKind, error) {
	dst = dst[:0]
	kind := fieldBytes
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return dst, dst, kind, nil
	}
	for {
		s.ws()
		if s.i < len(s.b) && (s.b[s.i] == '-' || s.b[s.i] >= '0' && s.b[s.i] <= '9') {
			v, ok, err := s.number()
			if err != nil {
				return nil, dst, fieldOther, err
			}
			if ok {
				dst = append(dst, v)
			} else {
				kind = fieldOther
			}
		} else {
			if err := s.skip(2); err != nil {
				return nil, dst, fieldOther, err
			}
			kind = fieldOther
		}
		s.ws()
		if s.i == len(s.b) {
			return nil, dst, fieldOther, errJSONEnd
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return dst, dst, kind, nil
		default:
			return nil, dst, fieldOther, errJSONSyntax
		}
	}
}

// number reads one JSON number and says whether it is an integer 0..255.
func (s *jsonScanner) number() (byte, bool, error) {
	b, i := s.b, s.i
	isByte := true
	if b[i] == '-' {
		isByte = false
		i++
	}
	if i == len(b) {
		return 0, false, errJSONEnd
	}
	v := 0
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			if v <= 255 {
				v = v*10 + int(b[i]-'0')
			}
			i++
		}
	default:
		return 0, false, errJSONSyntax
	}
	var err error
	if i < len(b) && b[i] == '.' {
		isByte = false
		if i, err = digits(b, i+1); err != nil {
			return 0, false, err
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		isByte = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i, err = digits(b, i); err != nil {
			return 0, false, err
		}
	}
	s.i = i
	return byte(v), isByte && v <= 255, nil
}

// digits consumes one or more decimal digits.
func digits(b []byte, i int) (int, error) {
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == start {
		if i == len(b) {
			return i, errJSONEnd
		}
		return i, errJSONSyntax
	}
	return i, nil
}

func (s *jsonScanner) literal(lit string) error {
	for k := 0; k < len(lit); k++ {
		if s.i == len(s.b) {
			return errJSONEnd
		}
		if s.b[s.i] != lit[k] {
			return errJSONSyntax
		}
		s.i++
	}
	return nil
}

// skip consumes any JSON value, checking its syntax.
func (s *jsonScanner) skip(depth int) error {
	if depth > maxJSONDepth {
		return errJSONSyntax
	}
	if s.i == len(s.b) {
		return errJSONEnd
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, err := s.strEnd()
		return err
	case c == '[':
		s.i++
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ']' {
			s.i++
			return nil
		}
		if err := s.skip(depth + 1); err != nil {
			return err
		}
		return s.skipRest(depth + 1)
	case c == '{':
		s.i++
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == '}' {
			s.i++
			return nil
		}
		for {
			s.ws()
			if s.i < len(s.b) && s.b[s.i] != '"' {
				return errJSONSyntax
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			s.ws()
			if err := s.expect(':'); err != nil {
				return err
			}
			s.ws()
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			s.ws()
			if s.i == len(s.b) {
				return errJSONEnd
			}
			switch s.b[s.i] {
			case ',':
				s.i++
			case '}':
				s.i++
				return nil
			default:
				return errJSONSyntax
			}
		}
	case c == '-' || c >= '0' && c <= '9':
		_, _, err := s.number()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return errJSONSyntax
}

// skipRest consumes the remaining elements of an array after its first, through ']'.
func (s *jsonScanner) skipRest(depth int) error {
	for {
		s.ws()
		if s.i == len(s.b) {
			return errJSONEnd
		}
		switch s.b[s.i] {
		case ']':
			s.i++
			return nil
		case ',':
			s.i++
			s.ws()
			if err := s.skip(depth); err != nil {
				return err
			}
		default:
			return errJSONSyntax
		}
	}
}

// strEnd consumes a string without decoding it and reports whether it had escapes. Messages
// are most of a line, so plain bytes are skipped eight at a time.
func (s *jsonScanner) strEnd() (bool, error) {
	b := s.b
	esc := false
	for i := s.i + 1; ; {
		for i+8 <= len(b) && plain8(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		if i >= len(b) {
			return esc, errJSONEnd
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return esc, nil
		case c == '\\':
			esc = true
			i++
			if i == len(b) {
				return esc, errJSONEnd
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				for k := 1; k <= 4; k++ {
					if i+k == len(b) {
						return esc, errJSONEnd
					}
					if hexVal(b[i+k]) < 0 {
						return esc, errJSONSyntax
					}
				}
				i += 5
			default:
				return esc, errJSONSyntax
			}
		case c < 0x20:
			return esc, errJSONSyntax
		default:
			i++
		}
	}
}

// plain8 reports whether none of the eight bytes in x is a quote, a backslash or a control
// character (the SWAR "has a byte less than n / equal to n" tests, exact for existence).
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	less := (x - ones*0x20) & ^x
	quote := x ^ (ones * '"')
	quote = (quote - ones) & ^quote
	bslash := x ^ (ones * '\\')
	bslash = (bslash - ones) & ^bslash
	return (less|quote|bslash)&highs == 0
}

// str reads a string at s.i. Without escapes the value points into the line; with them it is
// decoded into dst. Invalid UTF-8 passes through untouched: the bytes are the message.
func (s *jsonScanner) str(dst []byte) ([]byte, []byte, error) {
	if s.i == len(s.b) {
		return nil, dst, errJSONEnd
	}
	if s.b[s.i] != '"' {
		return nil, dst, errJSONSyntax
	}
	start := s.i + 1
	esc, err := s.strEnd()
	if err != nil {
		return nil, dst, err
	}
	raw := s.b[start : s.i-1]
	if !esc {
		return raw, dst, nil
	}
	dst = dst[:0]
	for k := 0; k < len(raw); k++ {
		c := raw[k]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		k++
		switch raw[k] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			ru := hex4(raw[k+1:])
			k += 4
			if utf16.IsSurrogate(ru) {
				// A pair becomes one rune; a lone half becomes U+FFFD, as in encoding/json.
				if k+6 < len(raw) && raw[k+1] == '\\' && raw[k+2] == 'u' {
					if r2 := utf16.DecodeRune(ru, hex4(raw[k+3:])); r2 != utf8.RuneError {
						ru = r2
						k += 6
					} else {
						ru = utf8.RuneError
					}
				} else {
					ru = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, ru)
		default: // '"', '\\', '/'
			dst = append(dst, raw[k])
		}
	}
	return dst, dst, nil
}

// hex4 decodes four hex digits already checked by strEnd.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		r = r<<4 | rune(hexVal(c))
	}
	return r
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c - 'a' + 10)
	case c >= 'A' && c <= 'F':
		return int(c - 'A' + 10)
	}
	return -1
}
