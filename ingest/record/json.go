package record

import "bytes"

// DecodeJSON decodes one line of `journalctl -o json` (json-seq's leading RS and a byte-order
// mark are skipped) into f, which must be zero. A hand-written scanner keeps the hot path free
// of allocation, which encoding/json is not.
//
// Field rules, following what journalctl prints:
//   - a string is the value;
//   - an array of numbers 0..255 is a byte string (journalctl's form for values with invalid
//     UTF-8 or control codes such as ANSI colours);
//   - an array of strings or byte arrays is a field the entry holds several times: the first
//     value is taken, for MESSAGE too, so that JSON and export input agree;
//   - null is a value journalctl left out (over 4096 bytes without --all): for MESSAGE it is
//     an empty message, and f.Null is set;
//   - any other value of a field we need is ignored, as if the field were absent.
//
// Of repeated keys the first usable value wins. The values point into line or into s, and are
// valid until the next call with s. It returns ErrBlank for a line of white space only (no
// damage), ErrCut when the line ends inside the object (what was decoded up to there is in f),
// and ErrSyntax when it is not one valid object. Whether f is a journal entry is f.IsEntry.
func DecodeJSON(line []byte, f *Fields, s *Scratch) error {
	line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // a byte-order mark
	for len(line) > 0 && line[0] == 0x1e {                // json-seq's separator
		line = line[1:]
	}
	sc := jsonScanner{b: line}
	sc.ws()
	if sc.i == len(sc.b) {
		return ErrBlank
	}
	return s.scanObject(&sc, f)
}

func (r *Scratch) scanObject(s *jsonScanner, f *Fields) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return s.atEnd()
	}
	for {
		key, err := s.member(&r.key)
		if err != nil {
			return err
		}
		if err := r.scanField(s, f, key); err != nil {
			return err
		}
		if end, err := s.next(); end || err != nil {
			return err
		}
	}
}

func (r *Scratch) scanField(s *jsonScanner, f *Fields, key []byte) error {
	var bit int
	var dst *[]byte
	switch string(key) {
	case "MESSAGE":
		bit, dst = HasMsg, &r.msg
	case "_HOSTNAME":
		bit, dst = HasHost, &r.host
	case "_SYSTEMD_UNIT":
		bit, dst = HasUnit, &r.unit
	case "SYSLOG_IDENTIFIER":
		bit, dst = HasIdent, &r.ident
	case "CONTAINER_NAME":
		bit, dst = HasContainerName, &r.cname
	case "CONTAINER_ID":
		bit, dst = HasContainerID, &r.cid
	case "__CURSOR":
		bit, dst = HasCursor, &r.cursor
	case "__REALTIME_TIMESTAMP":
		bit, dst = HasTime, &r.num
	default:
		return s.skip(0)
	}
	if f.Has&bit != 0 {
		return s.skip(0)
	}
	val, buf, kind, err := s.field(*dst)
	*dst = buf
	if err != nil || kind == fieldOther {
		return err
	}
	switch bit {
	case HasMsg:
		f.Msg, f.Null = val, kind == fieldNull
	case HasHost:
		f.Host = val
	case HasUnit:
		f.Unit = val
	case HasIdent:
		f.Ident = val
	case HasContainerName:
		f.ContainerName = val
	case HasContainerID:
		f.ContainerID = val
	case HasCursor:
		f.Cursor = val
	case HasTime:
		t, ok := ParseMicros(val)
		if !ok {
			return nil // a damaged timestamp: parse takes the time from the line instead
		}
		f.Time = t
	}
	f.Has |= bit
	return nil
}

// ParseMicros reads a non-negative decimal count of microseconds.
func ParseMicros(b []byte) (int64, bool) {
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
