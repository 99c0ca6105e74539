package pipeline

import (
	"context"
	"sync"

	"github.com/specwatch/specwatch/ingest"
)

// fanIn reads N sources into one loop without polling: each source has a goroutine that
// blocks in its Next and hands the result over, then waits until the loop is done with it
// (the entry's bytes are the source's until its next Next), so that entries are applied in
// one goroutine, each exactly once, and a source's goroutine never runs while the loop holds
// its delivery.
type fanIn struct {
	out    chan delivery
	acks   []chan struct{}
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// delivery is one result of a source's Next: an entry (err nil), ingest.ErrCaughtUp, its end
// or its failure, with the records it skipped since its last delivery.
type delivery struct {
	input      int
	e          *ingest.Entry
	err        error
	unreadable int64
}

func startFanIn(ctx context.Context, inputs []Input) *fanIn {
	ctx, cancel := context.WithCancel(ctx)
	f := &fanIn{out: make(chan delivery), acks: make([]chan struct{}, len(inputs)), cancel: cancel}
	for i, in := range inputs {
		f.acks[i] = make(chan struct{}, 1) // the loop never blocks on a goroutine that has stopped
		f.wg.Add(1)
		go f.read(ctx, i, in.Source)
	}
	return f
}

func (f *fanIn) read(ctx context.Context, i int, src ingest.Source) {
	defer f.wg.Done()
	u, _ := src.(ingest.UnreadableCounter)
	var e ingest.Entry
	for {
		d := delivery{input: i, e: &e, err: src.Next(ctx, &e)}
		if u != nil {
			d.unreadable = u.TakeUnreadable()
		}
		select {
		case f.out <- d:
		case <-ctx.Done():
			return
		}
		select {
		case <-f.acks[i]:
		case <-ctx.Done():
			return
		}
		if d.err != nil && d.err != ingest.ErrCaughtUp {
			return
		}
	}
}

// ack releases the goroutine whose delivery d is.
func (f *fanIn) ack(d delivery) { f.acks[d.input] <- struct{}{} }

// stop ends every goroutine and waits for them.
func (f *fanIn) stop() {
	f.cancel()
	f.wg.Wait()
}
