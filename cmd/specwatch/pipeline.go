package main

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/parse"
)

// journalSource is the journal as the pipeline uses it. Lifecycle: one goroutine (the
// pipeline's) calls Next until the context ends, then Close; Next waits at most wait and
// returns false when nothing arrived.
type journalSource interface {
	Next(e *ingest.Entry, wait time.Duration) (bool, error)
	Close() error
}

// cursorSink persists how far the pipeline got. Mark is called after an entry's effects are in
// the model; Flush makes the latest mark durable (at most every second, and on shutdown).
type cursorSink interface {
	Mark(cursor string)
	Flush() error
}

// stepObserver feeds the step-duration histogram once per decode point.
type stepObserver interface {
	ObserveStep(seriesID int, labels model.Labels, seconds float64)
}

// pipeline is ingest → parse → model for the daemon. The model is guarded by mu: the pipeline
// holds it per entry (microseconds), readers (scrapes, the API) hold it only to copy.
type pipeline struct {
	mu     sync.Mutex
	set    *model.Set
	parser *parse.Parser
	stream *parse.Stream
	steps  stepObserver
	log    zerolog.Logger
	now    func() time.Time

	entry   ingest.Entry
	sample  parse.Sample
	stepSeq []int64 // per series ID: the last step sequence fed to the histogram

	lastEntry  atomic.Int64 // Unix µs of the latest entry read
	caughtUp   atomic.Bool
	flushFails atomic.Int64
}

func newPipeline(set *model.Set, parser *parse.Parser, stream *parse.Stream, steps stepObserver, log zerolog.Logger, now func() time.Time) *pipeline {
	return &pipeline{set: set, parser: parser, stream: stream, steps: steps, log: log, now: now}
}

// tickEvery paces live-only housekeeping (stale detection).
const tickEvery = 10 * time.Second

// run reads src until ctx ends. It returns nil on cancellation, after a final cursor flush.
func (p *pipeline) run(ctx context.Context, src journalSource, cur cursorSink) error {
	var lastFlush, lastTick time.Time
	dirty := false
	for ctx.Err() == nil {
		ok, err := src.Next(&p.entry, time.Second)
		if err != nil {
			return err
		}
		if ok {
			p.apply(&p.entry)
			if len(p.entry.Cursor) > 0 {
				cur.Mark(string(p.entry.Cursor))
				dirty = true
			}
		} else if !p.caughtUp.Load() {
			p.caughtUp.Store(true)
			p.log.Info().Msg("caught up with the journal")
		}
		now := p.now()
		if dirty && now.Sub(lastFlush) >= time.Second {
			p.flush(cur)
			lastFlush, dirty = now, false
		}
		if now.Sub(lastTick) >= tickEvery {
			p.mu.Lock()
			p.set.Tick(now.UnixNano())
			p.mu.Unlock()
			lastTick = now
		}
	}
	p.flush(cur)
	return nil
}

// flush saves the cursor; a failure (read-only or full state directory) is logged and retried
// at the next flush, never fatal: losing the cursor costs re-reading, not correctness.
func (p *pipeline) flush(cur cursorSink) {
	if err := cur.Flush(); err != nil {
		if p.flushFails.Add(1) == 1 || p.flushFails.Load()%60 == 0 {
			p.log.Warn().Err(err).Int64("failures", p.flushFails.Load()).Msg("cannot save the journal cursor; will retry")
		}
		return
	}
	if n := p.flushFails.Load(); n > 0 {
		p.log.Info().Int64("after_failures", n).Msg("journal cursor saved again")
		p.flushFails.Store(0)
	}
}

// apply puts one entry's effects into the model.
func (p *pipeline) apply(e *ingest.Entry) {
	p.lastEntry.Store(e.Time)
	s := &p.sample
	r := p.parser.Parse(e.Message, s)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.set.Count(r)
	if e.Time != 0 {
		p.set.Seen(e.Host, e.Unit, e.Time*1000)
	}
	if r == parse.Ignored {
		return
	}
	p.stream.Resolve(e.Time, e.Host, e.Unit, s)
	if r == parse.Malformed {
		p.set.ObserveMalformed(s)
		return
	}
	se := p.set.Observe(s)
	if se == nil || p.steps == nil {
		return
	}
	step, seq := se.StepObserved()
	id := se.ID()
	for len(p.stepSeq) <= id {
		p.stepSeq = append(p.stepSeq, 0)
	}
	if seq != p.stepSeq[id] {
		p.stepSeq[id] = seq
		if step > 0 {
			p.steps.ObserveStep(id, se.Labels(), step)
		}
	}
}

// lagSeconds is now minus the time of the latest entry read (0 before the first).
func (p *pipeline) lagSeconds() float64 {
	t := p.lastEntry.Load()
	if t == 0 {
		return 0
	}
	return p.now().Sub(time.UnixMicro(t)).Seconds()
}

var errNoJournal = errors.New("no journal backend")
