package record

import "errors"

// What DecodeJSON returns for a line it does not decode whole.
var (
	ErrSyntax = errors.New("json syntax")     // not one valid JSON object
	ErrCut    = errors.New("json cut short")  // the line ends inside the object
	ErrBlank  = errors.New("json blank line") // white space only: nothing, and no damage
)

// MaxDepth bounds nesting in skipped values (deeper is ErrSyntax); journalctl nests two levels
// at most.
const MaxDepth = 64

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
		return ErrCut
	}
	if s.b[s.i] != c {
		return ErrSyntax
	}
	s.i++
	return nil
}

// atEnd accepts only trailing white space after the object.
func (s *jsonScanner) atEnd() error {
	s.ws()
	if s.i != len(s.b) {
		return ErrSyntax
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

// field reads a value of a field we need: see DecodeJSON for the rules. The value points into
// the line or into dst; the returned buffer is dst, possibly grown, to keep for reuse.
func (s *jsonScanner) field(dst []byte) ([]byte, []byte, fieldKind, error) {
	if s.i == len(s.b) {
		return nil, dst, fieldOther, ErrCut
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
		return nil, dst, fieldOther, ErrCut
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
			return nil, dst, fieldOther, ErrCut
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return dst, dst, kind, nil
		default:
			return nil, dst, fieldOther, ErrSyntax
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
		return 0, false, ErrCut
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
		return 0, false, ErrSyntax
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
			return i, ErrCut
		}
		return i, ErrSyntax
	}
	return i, nil
}

func (s *jsonScanner) literal(lit string) error {
	for k := 0; k < len(lit); k++ {
		if s.i == len(s.b) {
			return ErrCut
		}
		if s.b[s.i] != lit[k] {
			return ErrSyntax
		}
		s.i++
	}
	return nil
}

// skip consumes any JSON value, checking its syntax.
func (s *jsonScanner) skip(depth int) error {
	if depth > MaxDepth {
		return ErrSyntax
	}
	if s.i == len(s.b) {
		return ErrCut
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
				return ErrSyntax
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
				return ErrCut
			}
			switch s.b[s.i] {
			case ',':
				s.i++
			case '}':
				s.i++
				return nil
			default:
				return ErrSyntax
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
	return ErrSyntax
}

// skipRest consumes the remaining elements of an array after its first, through ']'.
func (s *jsonScanner) skipRest(depth int) error {
	for {
		s.ws()
		if s.i == len(s.b) {
			return ErrCut
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
			return ErrSyntax
		}
	}
}

// member reads an object member's key and its colon, leaving the scanner at the value; buf is
// the caller's scratch for a key with escapes.
func (s *jsonScanner) member(buf *[]byte) ([]byte, error) {
	s.ws()
	key, kb, err := s.str(*buf)
	*buf = kb
	if err != nil {
		return nil, err
	}
	s.ws()
	if err := s.expect(':'); err != nil {
		return nil, err
	}
	s.ws()
	return key, nil
}

// next steps over what follows a member's value: true at the object's closing brace (the
// rest of the line checked by atEnd), false at a comma. Small enough to inline: it runs after
// every member of every journal entry.
func (s *jsonScanner) next() (bool, error) {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ',' {
		s.i++
		return false, nil
	}
	return true, s.close()
}

// close ends an object at its closing brace: ErrCut at the line's end, ErrSyntax at anything
// else.
func (s *jsonScanner) close() error {
	if s.i == len(s.b) {
		return ErrCut
	}
	if s.b[s.i] != '}' {
		return ErrSyntax
	}
	s.i++
	return s.atEnd()
}
