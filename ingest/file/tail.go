package file

import (
	"bytes"
	"io"
	"os"
	"sync"
	"time"

	"github.com/specwatch/specwatch/ingest/containerlog"
)

// tail reads one file from a position: records (lines) out of a reused buffer, decoded by the
// file's format. The buffer and the decoder outlive the descriptor, which the Source may close
// to bound open files and reopen later.
type tail struct {
	id                        int
	path                      string // where it was last seen
	ident                     Identity
	meta                      containerlog.Meta
	unit                      []byte // plain files: the path they were found at, so that two files are two series
	container, namespace, pod []byte
	f                         *os.File
	max                       int

	buf  []byte
	r, w int
	pos  int64 // file offset of buf[r]
	dec  *containerlog.Decoder
	skip bool // dropping the rest of a record longer than max
	done int64

	gone     bool      // the path no longer leads to it (rotated away, deleted)
	outside  bool      // found again outside the globs, where it was renamed while closed or while specwatch was down
	goneAt   time.Time // when it was first seen gone
	lastData time.Time // when it last gave a byte
	lastUsed time.Time // for closing the least recently read when over the bound
	parked   bool      // a copy of another file (copytruncate): read only once that one is truncated
	shadowOf int

	truncated int64 // over-long records dropped
	read      int64 // bytes read into buf
	size      int64 // the file's size at the last scan
	rotated   bool  // counted as a rotation already
	sawEOF    bool  // the last read found no more data
	replaced  bool  // new bytes came from a file whose start changed: truncated and refilled
	readErr   error // the last read failed (EIO)
	failing   bool  // reads fail: counted and reported once, retried at each scan
	nuls      int64 // NUL bytes skipped: the hole a non-append writer leaves after a truncation
}

// readEnd is the offset of the next byte to read from the file.
func (t *tail) readEnd() int64 { return t.pos + int64(t.w-t.r) }

// reset starts reading at off with nothing buffered; the decoder is replaced once the format
// is known again.
func (t *tail) reset(off int64) {
	t.r, t.w, t.pos, t.done, t.skip = 0, 0, off, off, false
	if t.dec != nil {
		t.dec.Drop()
	}
}

// hasRecord reports whether a complete record is buffered.
func (t *tail) hasRecord() bool { return bytes.IndexByte(t.buf[t.r:t.w], '\n') >= 0 }

// fill reads once at readEnd; false when there was nothing new (or the descriptor is closed).
func (t *tail) fill(now time.Time) bool {
	if t.f == nil {
		return false
	}
	if t.r == t.w {
		t.r, t.w = 0, 0
	}
	if t.buf == nil {
		t.buf = getBuf()
	}
	if t.w == len(t.buf) {
		if t.r > 0 {
			t.w = copy(t.buf, t.buf[t.r:t.w])
			t.r = 0
		} else {
			nb := make([]byte, min(2*len(t.buf), t.max+1))
			if len(nb) <= len(t.buf) {
				return false // full of one record: next() cuts it
			}
			t.w = copy(nb, t.buf[:t.w])
			t.buf = nb
		}
	}
	n, err := readAt(t.f, t.buf[t.w:], t.readEnd())
	if err != nil && err != io.EOF {
		t.readErr = err
		return false
	}
	t.readErr, t.failing = nil, false
	if n > 0 && !t.ident.matches(t.f) {
		// Read after the file was truncated and refilled past this offset: these bytes are
		// the new content's middle. The Source restarts the file at 0 instead (issue 27,
		// item 3); checking after the read, not before, leaves no window between the two.
		t.replaced = true
		return false
	}
	t.w += n
	t.read += int64(n)
	t.sawEOF = n == 0 || err == io.EOF
	if n > 0 {
		t.lastData = now
	}
	return n > 0
}

// readAt is the file read, a variable so that a test can make it fail as a disk does (EIO).
var readAt = func(f *os.File, b []byte, off int64) (int, error) { return f.ReadAt(b, off) }

// record returns the next complete record and its offset. An incomplete last line waits for
// its newline: the writer may be in the middle of it.
func (t *tail) record(now time.Time) ([]byte, int64, bool) {
	for {
		if !t.skip {
			t.skipNULs()
		}
		if k := bytes.IndexByte(t.buf[t.r:t.w], '\n'); k >= 0 {
			rec, off := t.buf[t.r:t.r+k], t.pos
			t.r += k + 1
			t.pos += int64(k) + 1
			if t.skip {
				t.skip = false
				continue
			}
			if k > t.max { // whole in the buffer, which starts larger than a small bound
				t.truncated++
				continue
			}
			return rec, off, true
		}
		if t.w-t.r > t.max {
			// Longer than any line: dropped through its newline, counted.
			if !t.skip {
				t.truncated++
			}
			t.skip = true
			t.pos += int64(t.w - t.r)
			t.r = t.w
		}
		if !t.fill(now) {
			if t.r == t.w {
				t.releaseBuf() // caught up: an idle file holds no buffer
			}
			return nil, 0, false
		}
	}
}

// skipNULs steps over NUL bytes where a record would start. No log line starts with one; a
// writer without O_APPEND goes on at its old offset after a copytruncate, and the file reads
// as NULs up to there (issue 27, item 2): glued to the next line they made a phantom series.
func (t *tail) skipNULs() {
	k := t.r
	for k < t.w && t.buf[k] == 0 {
		k++
	}
	t.nuls += int64(k - t.r)
	t.pos += int64(k - t.r)
	t.r = k
}

// readBufBytes is a file's read buffer while it has something to read; a longer line grows it
// (up to the line bound) until the file is caught up with.
const readBufBytes = 64 << 10

// bufs are the read buffers of the files being read, shared: 10,000 followed files held 64
// KiB each, and 300 that once had a 1 MB line kept 377 MB (issue 27, item 10).
var bufs = sync.Pool{New: func() any { return new([readBufBytes]byte) }}

func getBuf() []byte { return bufs.Get().(*[readBufBytes]byte)[:] }

// releaseBuf gives the buffer back (a grown one to the garbage collector). Nothing is
// buffered; the last record returned from it has been used (valid until the next call).
func (t *tail) releaseBuf() {
	if len(t.buf) == readBufBytes {
		bufs.Put((*[readBufBytes]byte)(t.buf))
	}
	t.buf, t.r, t.w = nil, 0, 0
}

// sniff picks the decoder from the file's first line, read from the start whatever the
// position, so that a resumed file is decoded as it was before. Until a first line is
// complete the format is not known and nothing is read.
func (t *tail) sniff() bool {
	if t.dec != nil {
		return true
	}
	if t.f == nil {
		return false
	}
	buf := getBuf()
	defer bufs.Put((*[readBufBytes]byte)(buf))
	n, _ := t.f.ReadAt(buf, 0)
	k := bytes.IndexByte(buf[:n], '\n')
	if k < 0 && n < len(buf) {
		return false
	}
	format := containerlog.SniffPrefix(buf[:n]) // a first line past 64 KiB (issue 27, item 12)
	if k >= 0 {
		format = containerlog.Sniff(buf[:k])
	}
	t.dec = containerlog.NewDecoder(format, t.max)
	return true
}

// next returns the next decoded line and the position after it, as an entry's cursor wants it.
func (t *tail) next(now time.Time) (containerlog.Line, Position, bool) {
	if !t.sniff() {
		return containerlog.Line{}, Position{}, false
	}
	for {
		rec, off, ok := t.record(now)
		if !ok {
			return containerlog.Line{}, Position{}, false
		}
		l, ok := t.dec.Decode(rec, off)
		t.done = off + int64(len(rec)) + 1
		if !ok {
			continue
		}
		t.lastUsed = now
		return l, t.position(), true
	}
}

// position is where a restart resumes after the line just returned.
func (t *tail) position() Position {
	p := Position{Offset: t.done, Done: t.done}
	if t.dec == nil {
		return p
	}
	if from, stream, ok := t.dec.Pending(); ok {
		p.Offset, p.Skip = from, 1-stream
	}
	return p
}

func (t *tail) close() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}
