package containerlog

import (
	"bytes"

	"github.com/specwatch/specwatch/ingest/record"
)

// DefaultMaxLineBytes bounds a line joined from partial records. Docker splits at 16 KiB and
// containerd at 16 KiB, so an engine's statistics line (under 1 KiB) is never near it.
const DefaultMaxLineBytes = 1 << 20

// Stream numbers a line's stream; partial lines are joined per stream, since stdout and stderr
// are copied by separate goroutines in every runtime and may interleave.
const (
	Stdout = 0
	Stderr = 1
)

// Stats counts what a Decoder did.
type Stats struct {
	// Lines is the number of lines Decode returned.
	Lines int64
	// Joined is the number of those lines assembled from more than one record.
	Joined int64
	// Bad is the number of records that were not of the format (counted and skipped), plus
	// the partial lines a bad record interrupted (dropped: their end may be what was lost).
	Bad int64
	// Cut is the number of lines dropped because their partial records passed the bound. A
	// cut line is dropped, not returned shortened: its last number would read as a smaller
	// one.
	Cut int64
}

// Line is one decoded line. Msg is valid until the next call to the Decoder.
type Line struct {
	Msg    []byte
	Time   int64 // Unix microseconds from the record; 0 for plain text
	Stream int   // Stdout or Stderr
}

// Decoder turns the records of one file (lines without their newline) into log lines. It is
// not safe for concurrent use; the zero value decodes plain text with the default bound.
type Decoder struct {
	format Format
	max    int
	slots  [2]slot
	docker dockerLine
	stats  Stats
	// Resuming inside another stream's line (Resume): records of skipStream ending at or
	// before skipUntil were applied before the restart and are dropped.
	skipStream int
	skipUntil  int64
}

// slot is one stream's line being joined from partial records.
type slot struct {
	buf     []byte
	time    int64
	from    int64 // offset of the line's first record
	open    bool  // a partial line is being joined
	cutting bool  // the line passed the bound: its records are dropped through its end
}

// NewDecoder decodes format; maxLine ≤ 0 means DefaultMaxLineBytes.
func NewDecoder(format Format, maxLine int) *Decoder {
	if maxLine <= 0 {
		maxLine = DefaultMaxLineBytes
	}
	return &Decoder{format: format, max: maxLine}
}

// Format is the format being decoded.
func (d *Decoder) Format() Format { return d.format }

// Stats returns the counters so far.
func (d *Decoder) Stats() Stats { return d.stats }

// Decode takes one record starting at file offset off and returns a line when the record
// completes one. Records that are not of the format are counted in Stats().Bad.
func (d *Decoder) Decode(rec []byte, off int64) (Line, bool) {
	var (
		msg     []byte
		t       int64
		stream  int
		partial bool
	)
	end := off + int64(len(rec)) + 1
	switch d.format {
	case Plain:
		d.stats.Lines++
		return Line{Msg: trimCR(rec)}, true
	case DockerJSON:
		if err := d.docker.decode(rec); err != nil {
			if err == record.ErrBlank {
				return Line{}, false
			}
			return d.bad()
		}
		var ok bool
		if t, ok = ParseTime(d.docker.rec.Time); !ok {
			return d.bad()
		}
		msg = d.docker.rec.Log
		if bytes.Equal(d.docker.rec.Stream, []byte("stderr")) {
			stream = Stderr
		}
		// A record without its newline is the front of a longer line (Docker splits at 16 KiB).
		if n := len(msg); n > 0 && msg[n-1] == '\n' {
			msg = msg[:n-1]
		} else {
			partial = true
		}
	case CRI:
		rec = trimCR(rec)
		if len(bytes.TrimSpace(rec)) == 0 {
			return Line{}, false
		}
		var stderr, ok bool
		if t, stderr, partial, msg, ok = splitCRI(rec); !ok {
			return d.bad()
		}
		if stderr {
			stream = Stderr
		}
	}
	return d.join(msg, t, stream, partial, off, end)
}

func (d *Decoder) join(msg []byte, t int64, stream int, partial bool, off int64, end int64) (Line, bool) {
	if d.skipUntil > 0 {
		if end > d.skipUntil {
			d.skipUntil = 0
		} else if stream == d.skipStream {
			return Line{}, false
		}
	}
	s := &d.slots[stream]
	if s.cutting {
		if !partial {
			s.cutting = false
		}
		return Line{}, false
	}
	if !s.open && !partial {
		d.stats.Lines++
		return Line{Msg: trimCR(msg), Time: t, Stream: stream}, true
	}
	if !s.open {
		s.open, s.time, s.from, s.buf = true, t, off, s.buf[:0]
	}
	if len(s.buf)+len(msg) > d.max {
		d.stats.Cut++
		s.open, s.buf = false, s.buf[:0]
		s.cutting = partial
		return Line{}, false
	}
	s.buf = append(s.buf, msg...)
	if partial {
		return Line{}, false
	}
	s.open = false
	d.stats.Lines++
	d.stats.Joined++
	return Line{Msg: trimCR(s.buf), Time: s.time, Stream: stream}, true
}

// bad counts a record that is not of the format; lines being joined are dropped with it.
func (d *Decoder) bad() (Line, bool) {
	d.stats.Bad++
	for i := range d.slots {
		if d.slots[i].open {
			d.stats.Bad++
		}
		d.slots[i].open, d.slots[i].cutting = false, false
	}
	return Line{}, false
}

// Resume starts decoding at a position saved while a line of the other stream was being
// joined: records of stream skip that end at or before until were applied already and are
// dropped, and the other stream's records from here on rebuild its line.
func (d *Decoder) Resume(skip int, until int64) {
	d.skipStream, d.skipUntil = skip, until
}

// Pending reports the offset of the earliest record of a line still being joined, and its
// stream: a position saved now must resume there, or that line's front would be lost.
func (d *Decoder) Pending() (from int64, stream int, ok bool) {
	for i := range d.slots {
		s := &d.slots[i]
		if s.open && (!ok || s.from < from) {
			from, stream, ok = s.from, i, true
		}
	}
	return from, stream, ok
}

// Flush ends the input: a line still being joined is returned as it is (a container that
// exited in the middle of a line), the next on each call, until it reports false.
func (d *Decoder) Flush() (Line, bool) {
	for i := range d.slots {
		s := &d.slots[i]
		if s.open {
			s.open = false
			d.stats.Lines++
			d.stats.Joined++
			return Line{Msg: trimCR(s.buf), Time: s.time, Stream: i}, true
		}
		s.cutting = false
	}
	return Line{}, false
}

// Drop forgets lines being joined, counting them as cut: the file they were in is gone and
// their end, if any, went to the next file.
func (d *Decoder) Drop() {
	for i := range d.slots {
		if d.slots[i].open {
			d.stats.Cut++
		}
		d.slots[i].open, d.slots[i].cutting = false, false
	}
}

// dockerLine is the json-file decoder's reusable state.
type dockerLine struct {
	rec     record.DockerLine
	scratch record.DockerScratch
}

func (d *dockerLine) decode(line []byte) error {
	return record.DecodeDockerJSON(line, &d.rec, &d.scratch)
}
