package ingest

import (
	"bytes"
	"errors"

	"github.com/specwatch/specwatch/ingest/record"
)

// nextJSON reads `journalctl -o json`, one object per line (record.DecodeJSON has the field
// rules). A line that is not one valid object, or an object with none of MESSAGE, __CURSOR and
// __REALTIME_TIMESTAMP, is counted bad and skipped; blank lines are not damage. A line cut
// short (at MaxLineBytes, or by the end of the stream) is still an entry when its MESSAGE was
// whole. A null MESSAGE is an empty message, counted in Stats.NullMessages.
func (r *Reader) nextJSON(e *Entry) error {
	for {
		line, end, err := r.readLine()
		if err != nil {
			return err
		}
		var f record.Fields
		err = record.DecodeJSON(line, &f, &r.fields)
		if err == record.ErrBlank {
			continue
		}
		if err == record.ErrCut && end != endNewline && f.Has&record.HasMsg != 0 {
			err = nil
		}
		if err != nil || !f.IsEntry() {
			r.stats.Bad++
			continue
		}
		if f.Null {
			r.stats.NullMessages++
		}
		fill(&f, e)
		r.stats.Entries++
		return nil
	}
}

// fill overwrites e.
func fill(f *record.Fields, e *Entry) {
	*e = Entry{Time: f.Time, Host: f.Host, Unit: UnitOf(f.Unit, f.Ident), Message: f.Msg, Cursor: f.Cursor, Container: f.Container()}
}

// nextExport reads the journal export format (systemd.io/JOURNAL_EXPORT_FORMATS): entries of
// `KEY=value` lines or binary fields (`KEY`, little-endian uint64 length, payload, newline),
// separated by blank lines. Several journalctl runs concatenated are one longer stream.
//
// Values are copied into reused buffers (record.Fields.Export) because reading the next field may move the data. Of a
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
		case err != nil && f.Has&record.HasMsg != 0:
			// Cut by the end of the stream with its message whole: keep it. The stream's
			// error comes back on the next call.
		case err != nil:
			if started {
				r.stats.Bad++
			}
			return err
		case !f.IsEntry():
			r.stats.Bad++
			continue
		}
		fill(&f, e)
		r.stats.Entries++
		return nil
	}
}

// errBadRecord marks a record to count and skip.
var errBadRecord = errors.New("bad export record")

// exportRecord reads fields up to the blank line that ends a record. It returns the stream's
// error (io.EOF included) when the stream ends inside a record, started telling that apart from
// a clean end between records.
func (r *Reader) exportRecord() (f record.Fields, started bool, err error) {
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
			f.Export(line[:eq], line[eq+1:], &r.fields)
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
		f.Export(r.key, r.buf[r.r+8:r.r+8+int(n)], &r.fields)
		r.r += size + 1
	}
}

// cut handles a stream that ends inside a binary field. With the message already read, the
// record is kept and the partial field dropped; without it, the record is bad, and the bytes
// after the field name are rescanned for records that a bogus length would otherwise hide.
func (r *Reader) cut(f record.Fields) (record.Fields, bool, error) {
	if f.Has&record.HasMsg == 0 {
		return f, true, errBadRecord
	}
	r.r = r.w
	return f, true, r.err
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
