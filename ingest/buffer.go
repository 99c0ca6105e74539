package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

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
