package ingest

import (
	"bytes"
	"io"

	"github.com/specwatch/specwatch/ingest/containerlog"
	"github.com/specwatch/specwatch/ingest/record"
)

// DefaultMaxLineBytes leaves room for a 1 MiB message plus the journal fields around it on one
// JSON line, so that the longest message journald keeps by default still arrives whole.
const DefaultMaxLineBytes = 1<<20 + 64<<10

// ReaderOptions tunes a Reader; the zero value detects the shape and uses the default limit.
type ReaderOptions struct {
	// Shape forces a shape; Auto (zero) detects it from the stream's first bytes.
	Shape Shape
	// MaxLineBytes bounds a line (Raw, JSON) or a field value (Export), and so the memory a
	// reader holds: longer lines are cut there and counted as truncated. Zero means
	// DefaultMaxLineBytes; values over 1 GiB mean 1 GiB.
	MaxLineBytes int
	// Name names the input in errors, e.g. the path; empty reads as "input".
	Name string
}

// Stats counts what a Reader did, for the operator's "why are my numbers missing" question.
type Stats struct {
	// Entries is the number of entries Next returned.
	Entries int64
	// Bad is the number of records skipped because they could not be read (broken JSON, an
	// export field that is not a field, a binary length past the limit or the data).
	Bad int64
	// Truncated is the number of lines or export field values cut at MaxLineBytes.
	Truncated int64
	// NullMessages is the number of JSON entries whose MESSAGE journalctl printed as null
	// (larger than 4096 bytes without --all); they are returned with an empty message.
	NullMessages int64
	// Bytes is the number of bytes read from the source so far.
	Bytes int64
}

// Reader yields the entries of one stream. It is not safe for concurrent use.
type Reader struct {
	src   io.Reader
	name  string
	max   int // MaxLineBytes
	limit int // the buffer never grows past this
	shape Shape
	stats Stats

	buf     []byte
	r, w    int   // unread data is buf[r:w]
	err     error // sticky error from src, io.EOF included
	discard bool  // the rest of a truncated line is still to be skipped
	empties int   // consecutive empty reads, to stop a broken source spinning

	fields record.Scratch        // reused storage for field values that cannot point into buf
	lines  *containerlog.Decoder // DockerJSON and CRI: joins partial records
	// DockerJSON and CRI: the container's identity from the path (Name)
	container, namespace, pod []byte
	key                       []byte // an export binary field's name, kept while its payload is read
}

// NewReader peeks at r to detect its shape unless opts forces one. Peeking reads only until the
// answer is settled (usually the first line), so a live pipe is not held back; a read error met
// while peeking is returned by the first Next.
func NewReader(r io.Reader, opts ReaderOptions) *Reader {
	rd := &Reader{src: r, name: opts.Name, max: opts.MaxLineBytes, shape: opts.Shape}
	if rd.name == "" {
		rd.name = "input"
	}
	if rd.max <= 0 {
		rd.max = DefaultMaxLineBytes
	}
	rd.max = min(rd.max, 1<<30)
	// Room for a whole line and the byte after it, or an export binary field: length, payload,
	// newline.
	rd.limit = max(rd.max+16, PeekSize)
	rd.buf = make([]byte, min(startSize, rd.limit))
	if rd.shape < Raw || rd.shape > CRI {
		rd.shape = rd.detectShape()
	}
	return rd
}

// startSize is the buffer's size until a longer line needs more. It is larger than the 64 KiB
// bufio.Reader that Open puts under a file, so that a read into the buffer's free part goes
// straight to the file instead of being copied through bufio's buffer, and a quarter of the
// system calls remain: reading a large file took 5-10 % less time.
const startSize = 4 * PeekSize

func (r *Reader) detectShape() Shape {
	for bom := false; ; {
		// A UTF-8 byte-order mark (editors, Windows tools) is not part of the first record:
		// read as text it made a phantom series of its own.
		if !bom && r.w-r.r >= len(utf8BOM) {
			bom = true
			if bytes.HasPrefix(r.buf[r.r:r.w], utf8BOM) {
				r.r += len(utf8BOM)
			}
		}
		s, more := detect(r.buf[r.r:r.w])
		if !more || r.w-r.r >= PeekSize || r.err != nil {
			return s
		}
		r.fill()
	}
}

var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// Shape is the shape being read, detected or forced.
func (r *Reader) Shape() Shape { return r.shape }

// Stats returns the counters so far.
func (r *Reader) Stats() Stats { return r.stats }

// Next fills e with the next entry. Its slices point into the reader's buffers and stay valid
// until the next call. Unreadable records are counted and skipped, never returned. At the end
// of the stream Next returns io.EOF; a read error is returned wrapped, after the data read
// before it.
func (r *Reader) Next(e *Entry) error {
	switch r.shape {
	case JSON:
		return r.nextJSON(e)
	case Export:
		return r.nextExport(e)
	case DockerJSON, CRI:
		return r.nextContainer(e)
	}
	return r.nextRaw(e)
}

func (r *Reader) nextRaw(e *Entry) error {
	line, _, err := r.readLine()
	if err != nil {
		return err
	}
	*e = Entry{Message: trimCR(line)}
	r.stats.Entries++
	return nil
}
