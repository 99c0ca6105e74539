//go:build cgo && linux

package sdjournal

/*
#include <errno.h>
#include <stdlib.h>
#include "sdjournal.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"

	"github.com/specwatch/specwatch/ingest"
)

// errFieldRead marks a failure to read an entry the journal did move to: the entry is
// damaged, not the handle (see Source.step).
var errFieldRead = errors.New("reading entry")

// sdLibError reports why the C read path cannot be used, or nil.
func sdLibError() error {
	if r := C.sw_init(); r < 0 {
		return fmt.Errorf("libsystemd.so.0 not usable: %w", syscall.Errno(-r))
	}
	return nil
}

// Batch sizes: entries and buffer bytes per request to the owner thread. A request costs a
// wake-up of that thread and, when the caller had to wait, of the caller, so a batch read
// (analyze) asks for many entries at once; following asks for what a 20 ms poll finds (tens
// of entries at thousands of lines a second) and keeps the buffers small.
const (
	sdBatchFollow = 64
	sdBufFollow   = 64 << 10
	sdBatchRead   = 1024
	sdBufRead     = 512 << 10
)

// sdBatch holds entries read ahead by the owner thread, in C memory (the thread writes them
// while the Go side is parked). newSDBatch allocates it, free releases it.
type sdBatch struct {
	ents    []C.sw_entry
	buf     []byte
	n, pos  int
	stop    C.int // when the batch was cut short: 0 end of journal, < 0 the next entry's error
	stopped bool  // stop is set: report it once the batch is served
	failAt  C.int // for an error: 0 moving to the entry failed, 1 reading it
	pending bool  // the handle sits on an entry not read yet
}

func newSDBatch(entries, bytes int) *sdBatch {
	b := &sdBatch{}
	b.ents = unsafe.Slice((*C.sw_entry)(C.calloc(C.size_t(entries), C.size_t(unsafe.Sizeof(C.sw_entry{})))), entries)
	b.grow(bytes)
	return b
}

// grow replaces the buffer with one of n bytes; entries served from the old one are invalid.
func (b *sdBatch) grow(n int) {
	if b.buf != nil {
		C.free(unsafe.Pointer(unsafe.SliceData(b.buf)))
	}
	b.buf = unsafe.Slice((*byte)(C.malloc(C.size_t(n))), n)
}

// reset forgets the entries read ahead (a new handle); the memory stays.
func (b *sdBatch) reset() {
	b.n, b.pos, b.stop, b.stopped, b.failAt, b.pending = 0, 0, 0, false, 0, false
}

func (b *sdBatch) free() {
	C.free(unsafe.Pointer(unsafe.SliceData(b.ents)))
	C.free(unsafe.Pointer(unsafe.SliceData(b.buf)))
	b.ents, b.buf = nil, nil
}

// setBatch points the request at b's memory for up to max entries (b nil: at nothing).
func (o *sdOwner) setBatch(b *sdBatch, advance bool, max int) {
	q := o.req
	q.advance, q.max, q.buf, q.cap, q.es = boolInt(advance), C.int(max), nil, 0, nil
	if b != nil && max > 0 {
		q.buf, q.cap = (*C.char)(unsafe.Pointer(unsafe.SliceData(b.buf))), C.size_t(len(b.buf))
		q.es = unsafe.SliceData(b.ents)
	}
}

// read asks the owner thread for up to max entries into b (see sw_batch).
func (o *sdOwner) read(b *sdBatch, advance bool, max int) (r C.int, n int, pending bool) {
	o.readAhead(b, advance, max)
	return o.readDone()
}

// readAhead starts read without waiting for it; readDone waits and returns its results.
func (o *sdOwner) readAhead(b *sdBatch, advance bool, max int) {
	o.setBatch(b, advance, max)
	o.submit(C.SW_OP_BATCH)
}

func (o *sdOwner) readDone() (r C.int, n int, pending bool) {
	r = o.await()
	n, pending = int(o.req.n), o.req.pending != 0
	o.setBatch(nil, false, 0)
	return r, n, pending
}

// took records what a read into b returned. -ENOBUFS (the first entry alone does not fit)
// leaves b empty with the handle on that entry and a buffer grown to hold it: the next read
// gets it.
func (b *sdBatch) took(r C.int, n int, pending bool) {
	if r == -C.ENOBUFS && n == 0 {
		need := int(b.ents[0].need)
		b.grow(need + need/4)
		b.pending = true
		return
	}
	b.n, b.pos, b.pending = n, 0, pending
	if r != 1 {
		b.stop, b.stopped, b.failAt = r, true, b.ents[min(n, len(b.ents)-1)].failed_at
	}
}

// empty says whether b has nothing to serve and the handle is past everything read.
func (b *sdBatch) empty() bool { return b.pos == b.n && !b.stopped && !b.pending }

// readFast returns the next entry, from the batch or by reading a new one, its slices
// pointing into the batch's buffer; false at the end of the journal. An error is reported
// after the entries read before it. With a resume pending (TestCursor must see the handle on
// the entry) or faults injected, batches hold one entry.
func (s *Source) readFast(e *ingest.Entry) (bool, error) {
	b := s.batch
	if b.pos == b.n && b.stopped {
		stop, failAt := b.stop, b.failAt
		b.reset()
		switch {
		case stop == 0:
			return false, nil
		case failAt == 0:
			return false, fmt.Errorf("moving to the next entry: %w", syscall.Errno(-stop))
		}
		return false, fmt.Errorf("%w: %w", errFieldRead, syscall.Errno(-stop))
	}
	if b.pos == b.n {
		var r C.int
		var n int
		var pending bool
		if s.own.busy { // the spare batch was being filled while b was served
			r, n, pending = s.own.readDone()
			s.batch, s.spare = s.spare, s.batch
			b = s.batch
		} else {
			r, n, pending = s.own.read(b, !b.pending, s.batchMax())
		}
		b.took(r, n, pending)
		if b.n == 0 {
			return s.readFast(e) // reports the end or the error, or reads into a grown buffer
		}
		s.readAhead()
	}
	ce := &b.ents[b.pos]
	b.pos++
	f := func(i int) []byte {
		off, n := int(ce.off[i]), int(ce.len[i])
		return b.buf[off : off+n : off+n]
	}
	*e = ingest.Entry{Time: int64(ce.realtime), Host: f(C.SW_HOSTNAME), Unit: f(C.SW_UNIT), Message: f(C.SW_MESSAGE)}
	if len(e.Unit) == 0 {
		e.Unit = f(C.SW_IDENT)
	}
	if ce.len[C.SW_CURSOR] > 0 { // sparse batches: the last entry only
		e.Cursor = f(C.SW_CURSOR)
	}
	return true, nil
}

// readAhead has the owner thread fill the spare batch while this one is served, when reading
// to the end (NoFollow: analyze), so that reading and parsing overlap on two threads. Only after a full batch: an end or an error is served first, and with a resume
// pending or faults injected entries come one at a time. Whatever else the source asks of
// the thread first settles the read-ahead.
func (s *Source) readAhead() {
	b := s.batch
	if !s.o.NoFollow || b.stopped || s.batchMax() == 1 {
		return
	}
	if s.spare == nil {
		s.spare = newSDBatch(len(b.ents), len(b.buf))
	}
	s.spare.reset()
	s.own.readAhead(s.spare, !b.pending, len(s.spare.ents)) // in flight: s.own.busy
}

// settle waits for a read-ahead and drops it: the handle is about to be moved or closed, and
// the next read starts again after the last entry returned. Every other request is awaited
// where it is made, so a request in flight between calls is a read-ahead.
func (s *Source) settle() {
	if s.own.busy {
		s.own.readDone()
		s.spare.reset()
	}
}

// batchMax is how many entries the next read may return: one while a resume is pending
// (TestCursor must see the handle on the entry) or faults are injected.
func (s *Source) batchMax() int {
	if s.Resume.Pending() || s.fault != nil {
		return 1
	}
	return len(s.batch.ents)
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
