//go:build cgo && linux

package sdjournal

/*
#include <stdlib.h>
#include "sdjournal.h"
*/
import "C"

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// sdOwner is a C thread that owns the sd_journal handle for its whole life: sd-journal(3)
// allows one thread per handle, and following a journal means blocking in sd_journal_wait
// between short reads. Owned by a Go goroutine locked to its thread (the first design), each
// blocking wait was a cgo call the runtime saw as a long syscall: sysmon retook the P and,
// woken by the next syscall, polled every 20 µs for a while, and the reader's wake-ups came
// with handoffs between threads. Following 2,000 lines/s at a 20 ms poll, sysmon's wake-ups
// were a third of the daemon's CPU (perf), 2.7–3.1 % of a core in all.
//
// Here the thread is invisible to the Go scheduler: it sleeps in sd_journal_wait or on its
// kick eventfd. The Go side submits a request by writing that eventfd and waits for the
// completion eventfd in the netpoller, like a socket read. Both use raw system calls: a
// cgo call or syscall.Syscall would wake sysmon from its deep sleep (entersyscall), which is
// what this design avoids; neither can block (eventfd writes only block at 2^64-2, and the
// completion read is non-blocking).
//
// Lifecycle: newSDOwner starts the thread, requests run one at a time (call is not safe for
// concurrent use), quit ends it. Strings and buffers handed to the thread are C memory.
type sdOwner struct {
	c    *C.sw_owner
	kick int
	ev   *os.File // the completion eventfd, registered with the netpoller
	rc   syscall.RawConn
	req  *C.sw_req // C memory: the thread writes it while the caller is parked
	busy bool      // a request is in flight (submit without await)
}

// newSDOwner starts the thread. sparse has its batch reads format the cursor of their last
// entry only (for reads to the end; see sw_batch).
func newSDOwner(sparse bool) (*sdOwner, error) {
	req := (*C.sw_req)(C.calloc(1, C.size_t(unsafe.Sizeof(C.sw_req{}))))
	req.sparse = boolInt(sparse)
	var kick, efd, e C.int
	c := C.sw_owner_new(req, &kick, &efd, &e)
	if c == nil {
		C.free(unsafe.Pointer(req))
		return nil, fmt.Errorf("starting the journal thread: %w", syscall.Errno(-e))
	}
	o := &sdOwner{c: c, kick: int(kick), req: req}
	o.ev = os.NewFile(uintptr(efd), "specwatch-journal-thread") // non-blocking: netpoller
	rc, err := o.ev.SyscallConn()
	if err != nil { // cannot happen for an *os.File
		panic(fmt.Sprintf("ingest: journal thread eventfd: %v", err))
	}
	o.rc = rc
	return o, nil
}

// call runs the request in o.req (op and inputs set by the caller) and returns its result.
func (o *sdOwner) call(op C.int) C.int {
	o.submit(op)
	return o.await()
}

// submit starts the request in o.req; until await returns, o.req and the memory it points at
// belong to the thread.
func (o *sdOwner) submit(op C.int) {
	if o.busy {
		panic("ingest: journal thread request submitted while another is in flight")
	}
	o.busy = true
	q := o.req
	atomic.StoreInt32((*int32)(unsafe.Pointer(&q.done)), 0)
	atomic.StoreInt32((*int32)(unsafe.Pointer(&q.op)), int32(op))
	one := uint64(1)
	for {
		_, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(o.kick), uintptr(unsafe.Pointer(&one)), 8)
		if e != syscall.EINTR {
			break
		}
	}
}

// await waits for the submitted request and returns its result. Each completion writes the
// eventfd once, after setting done, and each await reads it until done, so the counter is
// zero between requests.
func (o *sdOwner) await() C.int {
	q := o.req
	var v uint64
	var rerr error
	err := o.rc.Read(func(fd uintptr) bool {
		for {
			_, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&v)), 8)
			switch e {
			case 0: // the thread sets done before it writes
				return atomic.LoadInt32((*int32)(unsafe.Pointer(&q.done))) != 0
			case syscall.EINTR:
				continue
			case syscall.EAGAIN: // not yet: park in the netpoller
				return false
			}
			rerr = e
			return true
		}
	})
	if err == nil {
		err = rerr
	}
	if err != nil { // an open eventfd of our own cannot fail
		panic(fmt.Sprintf("ingest: journal thread eventfd: %v", err))
	}
	o.busy = false
	return q.r
}

// callString runs op with s as its string input (a C copy, freed after the call).
func (o *sdOwner) callString(op C.int, s string) C.int {
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	o.req.s, o.req.slen = cs, C.size_t(len(s))
	r := o.call(op)
	o.req.s, o.req.slen = nil, 0
	return r
}

func errnoErr(what string, r C.int) error {
	if r >= 0 {
		return nil
	}
	return fmt.Errorf("%s: %w", what, syscall.Errno(-r))
}

// open opens a handle on dir ("" is the local journal), with matches ("+" a disjunction).
func (o *sdOwner) open(dir string, matches []string) error {
	var r C.int
	if dir == "" {
		r = o.call(C.SW_OP_OPEN)
	} else {
		r = o.callString(C.SW_OP_OPEN, dir)
	}
	if err := errnoErr("opening the journal", r); err != nil {
		return err
	}
	for _, m := range matches {
		if m == "+" {
			r = o.call(C.SW_OP_DISJUNCTION)
		} else {
			r = o.callString(C.SW_OP_MATCH, m)
		}
		if err := errnoErr("match "+m, r); err != nil {
			o.closeJournal()
			return err
		}
	}
	return nil
}

func (o *sdOwner) seekCursor(c string) error {
	return errnoErr("seeking to the cursor", o.callString(C.SW_OP_SEEK_CURSOR, c))
}

func (o *sdOwner) seekRealtime(usec uint64) error {
	o.req.u = C.uint64_t(usec)
	return errnoErr("seeking to a time", o.call(C.SW_OP_SEEK_REALTIME))
}

func (o *sdOwner) seekTail() error { return errnoErr("seeking to the tail", o.call(C.SW_OP_SEEK_TAIL)) }
func (o *sdOwner) seekHead() error { return errnoErr("seeking to the head", o.call(C.SW_OP_SEEK_HEAD)) }

// previous moves back one entry; false: there was none.
func (o *sdOwner) previous() (bool, error) {
	r := o.call(C.SW_OP_PREVIOUS)
	return r > 0, errnoErr("moving to the previous entry", r)
}

// testCursor says whether the handle sits on the entry cursor names.
func (o *sdOwner) testCursor(c string) bool { return o.callString(C.SW_OP_TEST_CURSOR, c) > 0 }

// wait is sd_journal_wait: its result (SD_JOURNAL_NOP, _APPEND, _INVALIDATE or -errno).
// With max > 0 the thread then reads up to max entries into b (see read), in the same request.
func (o *sdOwner) wait(d time.Duration, b *sdBatch, max int) (r, br C.int, n int, pending bool) {
	q := o.req
	q.u = C.uint64_t(d / time.Microsecond)
	o.setBatch(b, true, max)
	r = o.call(C.SW_OP_WAIT)
	br, n, pending = q.br, int(q.n), q.pending != 0
	o.setBatch(nil, false, 0)
	return r, br, n, pending
}

// setTrimAfter sets when the thread drops the journal's pages from the RSS before a wait:
// once they grew by after bytes; 0 never; negative before every wait (tests). It writes the
// request, so it may only run between requests.
func (o *sdOwner) setTrimAfter(after int64) { o.req.trim_after = C.long(after) }

func (o *sdOwner) closeJournal() { o.call(C.SW_OP_CLOSE) }

// tid is the owner thread's id (for tests counting its wake-ups).
func (o *sdOwner) tid() int { return int(C.sw_owner_tid(o.c)) }

// quit closes the handle, ends the thread and frees everything.
func (o *sdOwner) quit() {
	o.call(C.SW_OP_QUIT)
	C.sw_owner_free(o.c) // closes kick
	C.free(unsafe.Pointer(o.req))
	o.ev.Close()
	o.c, o.req = nil, nil
}
