package record

// DockerLine is one line of Docker's json-file log driver: `{"log":…,"stream":…,"time":…}`,
// with an optional "attrs" object (--log-opt labels/env). The slices point into the line or
// into the DockerScratch passed to DecodeDockerJSON.
type DockerLine struct {
	Log    []byte
	Stream []byte
	// Time is the "time" string as written (RFC 3339 with nanoseconds); the caller parses it.
	Time   []byte
	HasLog bool
}

// DockerScratch is reused storage for unescaped values; one per decoder.
type DockerScratch struct{ log, stream, time, key []byte }

// DecodeDockerJSON decodes one json-file line into d, which it overwrites. Docker omits "log"
// when it is empty, so only "time" is required: a line without it, with a non-string "log",
// "stream" or "time", or that is not one valid object is ErrSyntax (ErrCut when it ends inside
// the object, ErrBlank for white space only). Unknown keys are skipped; of a repeated key the
// first wins. Like DecodeJSON it allocates nothing once s has grown.
func DecodeDockerJSON(line []byte, d *DockerLine, s *DockerScratch) error {
	*d = DockerLine{}
	sc := jsonScanner{b: line}
	sc.ws()
	if sc.i == len(sc.b) {
		return ErrBlank
	}
	if err := sc.expect('{'); err != nil {
		return err
	}
	var seenStream, seenTime bool
	sc.ws()
	if sc.i < len(sc.b) && sc.b[sc.i] == '}' {
		return ErrSyntax // {} has no time
	}
	for {
		key, err := sc.member(&s.key)
		if err != nil {
			return err
		}
		var dst *[]byte
		var val *[]byte
		var unused bool
		seen := &unused
		switch string(key) {
		case "log":
			dst, val, seen = &s.log, &d.Log, &d.HasLog
		case "stream":
			dst, val, seen = &s.stream, &d.Stream, &seenStream
		case "time":
			dst, val, seen = &s.time, &d.Time, &seenTime
		}
		if dst == nil || *seen {
			if err := sc.skip(0); err != nil {
				return err
			}
		} else {
			if sc.i < len(sc.b) && sc.b[sc.i] != '"' {
				if err := sc.skip(0); err != nil {
					return err
				}
				return ErrSyntax // a value of the wrong type: not Docker's
			}
			v, buf, err := sc.str(*dst)
			*dst = buf
			if err != nil {
				return err
			}
			*val, *seen = v, true
		}
		end, err := sc.next()
		if err != nil {
			return err
		}
		if end {
			if !seenTime {
				return ErrSyntax
			}
			return nil
		}
	}
}
