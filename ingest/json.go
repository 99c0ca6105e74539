package ingest

import "bytes"

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
// Of repeated keys the first usable value wins. A line that is not one valid object, or an object with none
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
		var f record
		err = r.scanObject(&s, &f)
		if err == errJSONEnd && end != endNewline && f.has&hasMsg != 0 {
			err = nil
		}
		if err != nil || !f.isEntry() {
			r.stats.Bad++
			continue
		}
		if f.null {
			r.stats.NullMessages++
		}
		f.fill(e)
		r.stats.Entries++
		return nil
	}
}

func (r *Reader) scanObject(s *jsonScanner, f *record) error {
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

func (r *Reader) scanField(s *jsonScanner, f *record, key []byte) error {
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
