package ingest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sample"
)

// TestSamplesHandOff: a put returns only once the entry carrying its sample was handed out and
// the reader came back for the next (the loop applied it); an empty queue is caught up once,
// then Next blocks until a put or ctx's end; two readers putting at once are both served.
func TestSamplesHandOff(t *testing.T) {
	q := NewSamples()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var e Entry
	if err := q.Next(ctx, &e); !errors.Is(err, ErrCaughtUp) {
		t.Fatalf("empty queue: %v, want ErrCaughtUp", err)
	}
	a, b := &sample.Sample{Time: 1}, &sample.Sample{Time: 2}
	returned := make(chan int64, 2)
	for _, s := range []*sample.Sample{a, b} {
		go func() { q.ApplySample(sample.Matched, s); returned <- s.Time }()
	}
	// The first put returns when the reader comes back for the second entry, the second when
	// it comes back again and finds the queue empty.
	var first int64
	for i := range 3 {
		err := q.Next(ctx, &e)
		switch {
		case i < 2 && (err != nil || e.Sample == nil):
			t.Fatalf("Next %d: %v, sample %v", i, err, e.Sample)
		case i == 2 && !errors.Is(err, ErrCaughtUp):
			t.Fatalf("after both: %v, want ErrCaughtUp", err)
		}
		if i > 0 {
			if n := <-returned; n != first {
				t.Fatalf("put of sample %d returned, want %d's (applied)", n, first)
			}
		}
		if i < 2 {
			first = e.Sample.Time
			select {
			case n := <-returned:
				t.Fatalf("the put of sample %d returned before its entry was applied", n)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	if err := q.Next(ctx, &e); !errors.Is(err, context.Canceled) {
		t.Fatalf("caught up, then ctx ended: %v", err)
	}
}

// TestSamplesCloseReleases: a reader waiting for its sample to be taken, or applied, returns
// once the queue is closed.
func TestSamplesCloseReleases(t *testing.T) {
	q := NewSamples()
	done := make(chan struct{})
	go func() { q.ApplySample(sample.Matched, &sample.Sample{}); close(done) }()
	q.Close()
	<-done
	q2 := NewSamples()
	done2 := make(chan struct{})
	go func() { q2.ApplySample(sample.Matched, &sample.Sample{}); close(done2) }()
	var e Entry
	ctx := context.Background()
	for errors.Is(q2.Next(ctx, &e), ErrCaughtUp) { // until the put is there
	}
	q2.Close() // taken, never applied: released all the same
	<-done2
}
