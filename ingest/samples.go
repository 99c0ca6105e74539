package ingest

import (
	"context"
	"sync"

	"github.com/specwatch/specwatch/sample"
)

// Samples is a Source of samples already structured, put by readers that run on goroutines of
// their own (ingest/scrape's targets: it is their Sink). Each entry's Sample is the one put;
// ApplySample returns once the loop has applied it (or the queue is closed), so the sample is
// not copied. Next returns ErrCaughtUp once whenever nothing is waiting. Close releases every
// reader still waiting; the readers must stop putting before the queue is dropped.
type Samples struct {
	ch        chan put
	closed    chan struct{}
	closeOnce sync.Once
	held      chan struct{} // the last sample handed out, released at the next Next
	caught    bool
}

type put struct {
	s    *sample.Sample
	done chan struct{}
}

// NewSamples makes an empty queue.
func NewSamples() *Samples { return &Samples{ch: make(chan put), closed: make(chan struct{})} }

// ApplySample puts s and waits until the loop has applied it; r is sample.Matched for every
// sample a reader resolves.
func (q *Samples) ApplySample(_ sample.Result, s *sample.Sample) {
	p := put{s: s, done: make(chan struct{})}
	select {
	case q.ch <- p:
	case <-q.closed:
		return
	}
	select {
	case <-p.done:
	case <-q.closed:
	}
}

func (q *Samples) Next(ctx context.Context, e *Entry) error {
	if q.held != nil { // Next is called again once the previous entry was applied
		close(q.held)
		q.held = nil
	}
	if !q.caught {
		select {
		case p := <-q.ch:
			return q.take(p, e)
		default:
			q.caught = true
			return ErrCaughtUp
		}
	}
	select {
	case p := <-q.ch:
		return q.take(p, e)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (q *Samples) take(p put, e *Entry) error {
	*e = Entry{Sample: p.s}
	q.held, q.caught = p.done, false
	return nil
}

// Close releases the readers waiting in ApplySample.
func (q *Samples) Close() error {
	q.closeOnce.Do(func() { close(q.closed) })
	return nil
}
