package record

// LlamaLine is one record of llama.cpp's --log-jsonl output, such as
// `{"type":"log","time":616319,"level":"info","msg":"srv  llama_server: listening on …\n"}`;
// other types ("fit_memory_breakdown") carry other keys, which are skipped. The slices point
// into the line or into the LlamaScratch passed to DecodeLlamaJSONL.
type LlamaLine struct {
	Type []byte
	Msg  []byte
	// Time is "time", microseconds since the engine started; HasTime is false when it is
	// absent. A "time" that is not an integer in [0, 10^15) is ErrSyntax.
	Time           int64
	HasMsg         bool
	HasTime        bool
	MsgNotAString  bool // "msg" is there but is not a string: a damaged log record
	TypeNotAString bool
}

// LlamaScratch is reused storage for unescaped values; one per decoder.
type LlamaScratch struct{ typ, msg, key []byte }

// maxLlamaTimeDigits bounds "time": 15 digits of µs are 31 years of uptime.
const maxLlamaTimeDigits = 15

// DecodeLlamaJSONL decodes one --log-jsonl line into l, which it overwrites, with the scanner
// Docker's json-file lines go through: one valid object, unknown keys skipped, of a repeated
// key the first wins. It returns ErrBlank for white space only, ErrCut when the line ends
// inside the object and ErrSyntax when it is not one object (or "time" is not a whole number
// of µs). Whether the object is a log record is the caller's to judge (Type, HasMsg). Like
// DecodeDockerJSON it allocates nothing once s has grown.
func DecodeLlamaJSONL(line []byte, l *LlamaLine, s *LlamaScratch) error {
	*l = LlamaLine{}
	sc := jsonScanner{b: line}
	sc.ws()
	if sc.i == len(sc.b) {
		return ErrBlank
	}
	if err := sc.expect('{'); err != nil {
		return err
	}
	sc.ws()
	if sc.i < len(sc.b) && sc.b[sc.i] == '}' {
		sc.i++
		return sc.atEnd()
	}
	var seenType bool
	for {
		key, err := sc.member(&s.key)
		if err != nil {
			return err
		}
		switch {
		case string(key) == "type" && !seenType:
			seenType = true
			err = s.strField(&sc, &s.typ, &l.Type, &l.TypeNotAString)
		case string(key) == "msg" && !l.HasMsg && !l.MsgNotAString:
			if err = s.strField(&sc, &s.msg, &l.Msg, &l.MsgNotAString); err == nil {
				l.HasMsg = !l.MsgNotAString
			}
		case string(key) == "time" && !l.HasTime:
			l.Time, err = sc.micros()
			l.HasTime = err == nil
		default:
			err = sc.skip(0)
		}
		if err != nil {
			return err
		}
		if end, err := sc.next(); end || err != nil {
			return err
		}
	}
}

// strField reads a string value into *val (decoded into *dst when it has escapes); a value
// of another type is skipped and flagged in *notString.
func (s *LlamaScratch) strField(sc *jsonScanner, dst, val *[]byte, notString *bool) error {
	if sc.i < len(sc.b) && sc.b[sc.i] != '"' {
		*notString = true
		return sc.skip(0)
	}
	v, buf, err := sc.str(*dst)
	*dst = buf
	*val = v
	return err
}

// micros reads a non-negative integer of at most maxLlamaTimeDigits digits.
func (s *jsonScanner) micros() (int64, error) {
	start := s.i
	if err := s.skip(0); err != nil {
		return 0, err
	}
	digits := s.b[start:s.i]
	if len(digits) == 0 || len(digits) > maxLlamaTimeDigits {
		return 0, ErrSyntax
	}
	var v int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, ErrSyntax
		}
		v = v*10 + int64(c-'0')
	}
	return v, nil
}
