package ingest

import (
	"context"
	"errors"
	"io"
	"time"
)

// Source is a stream of entries: the contract every input of the live loop implements (the
// journal, followed files, a replay). The pipeline reads each Source on a goroutine of its own
// and applies their entries in one loop (pipeline.Follow).
//
// Lifecycle, as Prometheus' discovery.Discoverer states its own: one goroutine calls Next until
// it returns an error other than ErrCaughtUp; after that goroutine is done, the source's owner
// calls Close once. Next fills e with the next entry and returns nil; e's slices are valid
// until the next call. It blocks until there is an entry, except that a following source
// returns ErrCaughtUp when it has nothing new (again after each of its own waits while it stays
// idle, so that its caller can tell a quiet input from a stalled one); it returns io.EOF when
// a source that does not follow has ended, and ctx's error soon after ctx ends.
type Source interface {
	Next(ctx context.Context, e *Entry) error
	Close() error
}

// ErrCaughtUp is a following Source's "nothing new right now": its reader is at the end of
// what was written.
var ErrCaughtUp = errors.New("caught up")

// UnreadableCounter is a source that skips records it cannot decode (files in a container
// format). TakeUnreadable returns the count since its last call; it is called by the goroutine
// that calls Next.
type UnreadableCounter interface {
	TakeUnreadable() int64
}

// Poller is a reader that waits a bounded time for its next entry, as journald's readers and
// the file follower do: ok=false with a nil error means nothing arrived within wait.
type Poller interface {
	Next(e *Entry, wait time.Duration) (ok bool, err error)
}

// PollOptions tune Poll.
type PollOptions struct {
	// Active is the wait for a second after the last entry: journald announces appends up to
	// 250 ms late, and short waits while entries flow find them sooner. Zero: Idle always.
	Active time.Duration
	// Idle is the wait otherwise, which bounds how late ctx's end is seen; default 1s.
	Idle time.Duration
	// Now is the clock of the last entry's time; default time.Now.
	Now func() time.Time
}

// activeFor is how long after its last entry a polled source keeps its Active wait.
const activeFor = time.Second

// Poll makes a Source of a Poller. Close closes p when it is an io.Closer.
func Poll(p Poller, o PollOptions) Source {
	if o.Idle <= 0 {
		o.Idle = time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &polled{p: p, o: o}
}

type polled struct {
	p    Poller
	o    PollOptions
	last time.Time // when the last entry arrived
}

func (s *polled) Next(ctx context.Context, e *Entry) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	wait := s.o.Idle
	if s.o.Active > 0 && s.o.Now().Sub(s.last) < activeFor {
		wait = s.o.Active
	}
	ok, err := s.p.Next(e, wait)
	switch {
	case err != nil:
		return err
	case ok:
		s.last = s.o.Now()
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return ErrCaughtUp
}

func (s *polled) Close() error {
	if c, ok := s.p.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// TakeUnreadable passes on what the poller skipped.
func (s *polled) TakeUnreadable() int64 {
	if u, ok := s.p.(UnreadableCounter); ok {
		return u.TakeUnreadable()
	}
	return 0
}
