package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
	// DefaultMaxLineBytes.
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

	// Reused storage for field values that cannot point into buf.
	msg, host, unit, ident, cursor, key, num []byte
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
	// Room for a whole line and the byte after it, or an export binary field: length, payload,
	// newline.
	rd.limit = max(rd.max+16, PeekSize)
	rd.buf = make([]byte, PeekSize)
	if rd.shape < Raw || rd.shape > Export {
		rd.shape = rd.detectShape()
	}
	return rd
}

func (r *Reader) detectShape() Shape {
	for {
		s, more := detect(r.buf[r.r:r.w])
		if !more || r.w-r.r >= PeekSize || r.err != nil {
			return s
		}
		r.fill()
	}
}

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

// lineEnd says how readLine's line ended.
type lineEnd uint8

const (
	endNewline   lineEnd = iota
	endTruncated         // cut at MaxLineBytes; the rest up to the newline will be skipped
	endEOF               // the stream ended (or failed) before a newline
)

// readLine returns the next line without its newline, pointing into buf. A line is never
// longer than r.max.
func (r *Reader) readLine() ([]byte, lineEnd, error) {
	scanned := 0 // bytes of buf[r.r:] known to hold no newline
	for {
		if r.discard {
			if k := bytes.IndexByte(r.buf[r.r:r.w], '\n'); k >= 0 {
				r.r += k + 1
				r.discard = false
			} else {
				r.r = r.w
				if r.err != nil {
					return nil, endEOF, r.err
				}
				r.fill()
				continue
			}
		}
		if k := bytes.IndexByte(r.buf[r.r+scanned:r.w], '\n'); k >= 0 {
			end := r.r + scanned + k
			line := r.buf[r.r:end]
			r.r = end + 1
			if len(line) > r.max {
				// Only possible when the newline arrived with the excess in one read.
				r.stats.Truncated++
				return line[:r.max], endTruncated, nil
			}
			return line, endNewline, nil
		}
		scanned = r.w - r.r
		if scanned > r.max {
			line := r.buf[r.r : r.r+r.max]
			r.r = r.w
			r.discard = true
			r.stats.Truncated++
			return line, endTruncated, nil
		}
		if r.err != nil {
			if scanned == 0 {
				return nil, endEOF, r.err
			}
			line := r.buf[r.r:r.w]
			r.r = r.w
			return line, endEOF, nil
		}
		r.fill()
	}
}

// ensure makes n unread bytes available at buf[r.r:] (n ≤ r.limit) and reports whether it
// could; false means the stream ended first.
func (r *Reader) ensure(n int) bool {
	for r.w-r.r < n {
		if r.err != nil {
			return false
		}
		r.fill()
	}
	return true
}

// maxEmptyReads follows bufio: a source that keeps returning nothing and no error is broken.
const maxEmptyReads = 100

// fill reads once into buf, first making room by moving unread data to the front or, while
// under the limit, by growing the buffer. Growth happens while warming up only, so the steady
// state allocates nothing.
func (r *Reader) fill() {
	if r.r == r.w {
		r.r, r.w = 0, 0
	}
	if r.w == len(r.buf) {
		if r.r > 0 {
			r.w = copy(r.buf, r.buf[r.r:r.w])
			r.r = 0
		} else if len(r.buf) < r.limit {
			nb := make([]byte, min(2*len(r.buf), r.limit))
			r.w = copy(nb, r.buf[r.r:r.w])
			r.r = 0
			r.buf = nb
		} else {
			// Callers never ask for more than limit bytes; this is a bug guard, not a path.
			r.err = fmt.Errorf("ingest: %s: internal: buffer full", r.name)
			return
		}
	}
	n, err := r.src.Read(r.buf[r.w:])
	if n < 0 || n > len(r.buf)-r.w {
		n, err = 0, errors.New("invalid Read result")
	}
	r.w += n
	r.stats.Bytes += int64(n)
	switch {
	case err == io.EOF:
		r.err = io.EOF
	case err != nil:
		r.err = fmt.Errorf("ingest: reading %s: %w", r.name, err)
	case n == 0:
		if r.empties++; r.empties >= maxEmptyReads {
			r.err = fmt.Errorf("ingest: reading %s: %w", r.name, io.ErrNoProgress)
		}
	default:
		r.empties = 0
	}
}
