package ingest

import (
	"bytes"
	"errors"
)

// nextExport reads the journal export format (systemd.io/JOURNAL_EXPORT_FORMATS): entries of
// `KEY=value` lines or binary fields (`KEY`, little-endian uint64 length, payload, newline),
// separated by blank lines. Several journalctl runs concatenated are one longer stream.
//
// Values are copied into reused buffers because reading the next field may move the data. Of a
// field repeated in an entry the first value is taken, as for JSON. A complete entry with none
// of MESSAGE, __CURSOR and __REALTIME_TIMESTAMP is not a journal entry and counts as bad.
//
// Damage is counted as one bad record and skipped up to the next blank line: a line that is no
// field, or a binary length over MaxLineBytes or without the newline after its payload (never
// allocated: the length is checked before anything is read). Resynchronising starts right
// after the field name, so entries hidden behind a bogus length are not lost. An entry cut by
// the end of the stream is returned if its MESSAGE was complete, and counted bad otherwise.
func (r *Reader) nextExport(e *Entry) error {
	for {
		f, started, err := r.exportRecord()
		switch {
		case err == errBadRecord:
			r.stats.Bad++
			r.skipRecord()
			continue
		case err != nil && f.has&hasMsg != 0:
			// Cut by the end of the stream with its message whole: keep it. The stream's
			// error comes back on the next call.
		case err != nil:
			if started {
				r.stats.Bad++
			}
			return err
		case !f.isEntry():
			r.stats.Bad++
			continue
		}
		f.fill(e)
		r.stats.Entries++
		return nil
	}
}

// errBadRecord marks a record to count and skip.
var errBadRecord = errors.New("bad export record")

// exportRecord reads fields up to the blank line that ends a record. It returns the stream's
// error (io.EOF included) when the stream ends inside a record, started telling that apart from
// a clean end between records.
func (r *Reader) exportRecord() (f record, started bool, err error) {
	for {
		line, end, err := r.readLine()
		if err != nil {
			return f, started, err
		}
		line = trimCR(line)
		if len(line) == 0 {
			if !started {
				continue // blank lines between records
			}
			return f, true, nil
		}
		started = true
		if eq := bytes.IndexByte(line, '='); eq >= 0 {
			if !validKey(line[:eq]) {
				return f, true, errBadRecord
			}
			r.exportField(&f, line[:eq], line[eq+1:])
			continue
		}
		if end == endEOF {
			return f, true, r.err // a cut field name
		}
		if end == endTruncated || !validKey(line) {
			return f, true, errBadRecord
		}
		// Keep the name: reading the payload may move the buffer.
		r.key = append(r.key[:0], line...)
		if !r.ensure(8) {
			return r.cut(f)
		}
		n := le64(r.buf[r.r:])
		if n > uint64(r.max) {
			return f, true, errBadRecord
		}
		size := 8 + int(n)
		if !r.ensure(size + 1) {
			return r.cut(f)
		}
		switch {
		case r.buf[r.r+size] == '\n':
		case r.buf[r.r+size] == '\r' && r.ensure(size+2) && r.buf[r.r+size+1] == '\n':
			size++ // a stream that went through CRLF conversion
		default:
			return f, true, errBadRecord
		}
		r.exportField(&f, r.key, r.buf[r.r+8:r.r+8+int(n)])
		r.r += size + 1
	}
}

// cut handles a stream that ends inside a binary field. With the message already read, the
// record is kept and the partial field dropped; without it, the record is bad, and the bytes
// after the field name are rescanned for records that a bogus length would otherwise hide.
func (r *Reader) cut(f record) (record, bool, error) {
	if f.has&hasMsg == 0 {
		return f, true, errBadRecord
	}
	r.r = r.w
	return f, true, r.err
}

// exportField keeps the fields an Entry needs; the first of a repeated field wins.
func (r *Reader) exportField(f *record, key, val []byte) {
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
		if f.has&hasTime == 0 {
			if t, ok := parseMicros(val); ok {
				f.time = t
				f.has |= hasTime
			}
		}
		return
	default:
		return
	}
	if f.has&bit != 0 {
		return
	}
	*dst = append((*dst)[:0], val...)
	f.has |= bit
	switch bit {
	case hasMsg:
		f.msg = *dst
	case hasHost:
		f.host = *dst
	case hasUnit:
		f.unit = *dst
	case hasIdent:
		f.ident = *dst
	case hasCursor:
		f.cursor = *dst
	}
}

// skipRecord skips lines through the next blank line or the end of the stream. Long lines met
// on the way are not counted as truncated: nothing of them is kept anyway.
func (r *Reader) skipRecord() {
	defer func(n int64) { r.stats.Truncated = n }(r.stats.Truncated)
	for {
		line, _, err := r.readLine()
		if err != nil || len(trimCR(line)) == 0 {
			return
		}
	}
}
