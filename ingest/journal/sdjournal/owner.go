//go:build cgo && linux

package sdjournal

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"time"

	sdj "github.com/coreos/go-systemd/v22/sdjournal"
)

// owner is the goroutine that owns the sd_journal handle. sd-journal(3): "a given sd_journal
// pointer may only be used from one specific thread at all times (and it has to be the very
// same one during the entire lifetime of the object)". go-systemd serialises its calls with a
// mutex but leaves the thread to the caller, and Go moves goroutines between threads, so every
// call on a handle runs in a function handed to this goroutine, which is locked to its thread
// from start to end (and never unlocks it: the thread exits with the goroutine, so no other
// goroutine ever runs on a thread that held a handle).
//
// Its cost: a channel hand-off per request (a read asks for a batch of entries, a wait reads
// what arrived in the same request), and while it blocks in sd_journal_wait the runtime sees a
// long cgo call. The hand-written C thread this replaces avoided both; the live benchmark's
// figures for this backend are in docs/benchmarks.md.
//
// Lifecycle: newOwner starts the goroutine; do runs requests one at a time (not safe for
// concurrent use, like the Source); quit closes any open handle and ends the goroutine.
type owner struct {
	calls chan func()
	ack   chan struct{}
	ended chan struct{}
	tid   int          // the thread's id, for tests counting its wake-ups
	j     *sdj.Journal // touched only inside do's functions; nil while no handle is open
}

func newOwner() *owner {
	o := &owner{calls: make(chan func()), ack: make(chan struct{}), ended: make(chan struct{})}
	ready := make(chan int)
	go o.loop(ready)
	o.tid = <-ready
	return o
}

func (o *owner) loop(ready chan<- int) {
	runtime.LockOSThread()
	defer close(o.ended)
	ready <- syscall.Gettid()
	for f := range o.calls {
		f()
		o.ack <- struct{}{}
	}
}

// do runs f on the owner's thread and returns when it has.
func (o *owner) do(f func()) {
	o.calls <- f
	<-o.ack
}

// quit closes the handle, if open, and ends the goroutine (and its thread).
func (o *owner) quit() {
	o.closeJournal()
	close(o.calls)
	<-o.ended
}

// dataThreshold is the largest field a read returns whole: journald's own limit on a field
// (DATA_SIZE_MAX, 768 MiB), so every field journald can write arrives as written; the default
// (64 KiB) would cut long messages. A threshold bounds only what libsystemd decompresses, so a
// damaged compressed object cannot make it inflate more than this.
const dataThreshold = 768 << 20

// open opens a handle on dir ("" is the local journal) with matches ("+" a disjunction).
func (o *owner) open(dir string, matches []string) error {
	var err error
	o.do(func() {
		if o.j != nil {
			err = errors.New("a journal handle is open already")
			return
		}
		var j *sdj.Journal
		if dir == "" {
			j, err = sdj.NewJournal()
		} else {
			j, err = sdj.NewJournalFromDir(dir)
		}
		if err != nil {
			return
		}
		if err = j.SetDataThreshold(dataThreshold); err == nil {
			err = addMatches(j, matches)
		}
		if err != nil {
			j.Close()
			return
		}
		o.j = j
	})
	return err
}

func addMatches(j *sdj.Journal, matches []string) error {
	for _, m := range matches {
		var err error
		if m == "+" {
			err = j.AddDisjunction()
		} else {
			err = j.AddMatch(m)
		}
		if err != nil {
			return fmt.Errorf("match %s: %w", m, err)
		}
	}
	return nil
}

func (o *owner) closeJournal() {
	o.do(func() {
		if o.j != nil {
			o.j.Close()
			o.j = nil
		}
	})
}

// call runs f with the open handle; without one it fails with EBADF.
func (o *owner) call(f func(j *sdj.Journal) error) error {
	err := error(syscall.EBADF)
	o.do(func() {
		if o.j != nil {
			err = f(o.j)
		}
	})
	return err
}

func (o *owner) seekCursor(c string) error {
	return o.call(func(j *sdj.Journal) error { return j.SeekCursor(c) })
}

func (o *owner) seekRealtime(usec uint64) error {
	return o.call(func(j *sdj.Journal) error { return j.SeekRealtimeUsec(usec) })
}

func (o *owner) seekTail() error { return o.call((*sdj.Journal).SeekTail) }
func (o *owner) seekHead() error { return o.call((*sdj.Journal).SeekHead) }

// previous moves back one entry; false: there was none.
func (o *owner) previous() (bool, error) {
	var moved uint64
	err := o.call(func(j *sdj.Journal) (err error) {
		moved, err = j.Previous()
		return err
	})
	return moved > 0, err
}

// read reads up to max entries into b (see batch.fill).
func (o *owner) read(b *batch, max int, test string) {
	b.reset()
	if err := o.call(func(j *sdj.Journal) error { b.fill(j, max, test); return nil }); err != nil {
		b.stop, b.ended = err, true
	}
}

// wait is sd_journal_wait for at most d: its result (sdj.SD_JOURNAL_NOP, _APPEND, _INVALIDATE
// or a negative errno). With max > 0 it then reads up to max entries into b in the same
// request, which saves a hand-off per poll.
func (o *owner) wait(d time.Duration, b *batch, max int, test string) int {
	r := -int(syscall.EBADF)
	b.reset()
	o.do(func() {
		if o.j == nil {
			return
		}
		r = o.j.Wait(d)
		if r >= 0 && max > 0 {
			b.fill(o.j, max, test)
		}
	})
	return r
}
