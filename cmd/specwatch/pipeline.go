package main

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal"
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
	Mark(cursor []byte)
	Flush() error
}

// stepObserver feeds the step-duration histogram once per decode point.
type stepObserver interface {
	ObserveStep(seriesID int, labels model.Labels, seconds float64)
}

// pipeline is ingest → parse → model for the daemon. The model is guarded by locked.Mu: the
// pipeline holds it per entry (microseconds); readers (scrapes, the API, the page) hold it
// only to copy.
type pipeline struct {
	locked *exporter.Locked
	parser *atomic.Pointer[parse.Parser] // swapped by SIGHUP reloads
	stream *parse.Stream
	steps  stepObserver
	log    zerolog.Logger
	now    func() time.Time

	entry   ingest.Entry
	sample  parse.Sample
	stepSeq []int64 // per series ID: the last step sequence fed to the histogram

	caughtUp   bool
	flushFails int64
}

// journalCounter is a source that counts what it skipped or lost (journal.Source); the
// pipeline copies its counters to the metrics once a second.
type journalCounter interface {
	Stats() journal.Stats
}

// tickEvery paces live-only housekeeping (stale detection).
const tickEvery = 10 * time.Second

// activeWait is the reader's wait while entries are flowing (for activeFor after the last): a
// poll, since journald announces appends up to 250 ms late. A poll costs a wake-up of the
// journal's thread and one of this goroutine: at 2,000 lines/s and 20 ms, the daemon uses
// 2.0-2.3 % of a core without trimming the journal's pages (journal.trim_mib 0) and the write →
// /metrics p99 is 32-45 ms (target 50); a 25 ms poll took the p99 to 36-46 ms.
const (
	activeWait = 20 * time.Millisecond
	activeFor  = time.Second
)

// run reads src until ctx ends. It returns nil on cancellation, after a final cursor flush.
func (p *pipeline) run(ctx context.Context, src journalSource, cur cursorSink) error {
	var lastFlush, lastTick, lastEntry, lastStats time.Time
	dirty := false
	for ctx.Err() == nil {
		// journald tells readers about appends on a 250 ms coalescing timer; while entries are
		// flowing, short waits let the reader find them sooner (tens of ms from write to
		// /metrics), and a second after the last one the loop is back to one wake-up a second.
		wait := time.Second
		if p.now().Sub(lastEntry) < activeFor {
			wait = activeWait
		}
		ok, err := src.Next(&p.entry, wait)
		if err != nil {
			return err
		}
		if ok {
			lastEntry = p.now()
			p.apply(&p.entry)
			if len(p.entry.Cursor) > 0 {
				cur.Mark(p.entry.Cursor)
				dirty = true
			}
		} else {
			p.atTail()
		}
		now := p.now()
		if dirty && now.Sub(lastFlush) >= time.Second {
			p.flush(cur)
			lastFlush, dirty = now, false
		}
		if now.Sub(lastStats) >= time.Second {
			p.copyStats(src)
			lastStats = now
		}
		if now.Sub(lastTick) >= tickEvery {
			p.locked.Mu.Lock()
			p.locked.Set.Tick(now.UnixNano())
			p.locked.Mu.Unlock()
			lastTick = now
		}
	}
	p.flush(cur)
	p.copyStats(src)
	return nil
}

// copyStats publishes the journal reader's counters (losses, reopens, skips) to the metrics.
func (p *pipeline) copyStats(src journalSource) {
	jc, ok := src.(journalCounter)
	if !ok {
		return
	}
	st := jc.Stats()
	p.locked.Mu.Lock()
	p.locked.HasJournal = true
	p.locked.Journal = exporter.JournalCounts{Reopens: st.Reopens, CursorMissing: st.CursorMissing,
		LostEntries: st.LostEntries, Duplicates: st.Duplicates, Unreadable: st.Unreadable, BadFiles: st.BadFiles}
	p.locked.Mu.Unlock()
}

// flush saves the cursor; a failure (read-only or full state directory) is logged and retried
// at the next flush, never fatal: losing the cursor costs re-reading, not correctness.
func (p *pipeline) flush(cur cursorSink) {
	if err := cur.Flush(); err != nil {
		p.flushFails++
		p.locked.Mu.Lock()
		p.locked.CursorSaveFailures++
		p.locked.Mu.Unlock()
		if p.flushFails == 1 || p.flushFails%60 == 0 {
			p.log.Warn().Err(err).Int64("failures", p.flushFails).Msg("cannot save the journal cursor; will retry")
		}
		return
	}
	if p.flushFails > 0 {
		p.log.Info().Int64("after_failures", p.flushFails).Msg("journal cursor saved again")
		p.flushFails = 0
	}
}

// atTail records that the reader has nothing more right now: the figures describe the present.
func (p *pipeline) atTail() {
	p.locked.Mu.Lock()
	p.locked.AtTail, p.locked.CaughtUp = true, true
	p.locked.Mu.Unlock()
	if !p.caughtUp {
		p.caughtUp = true
		p.log.Info().Msg("caught up with the journal")
	}
}

// apply puts one entry's effects into the model.
func (p *pipeline) apply(e *ingest.Entry) {
	s := &p.sample
	r := p.parser.Load().Parse(e.Message, s)
	l := p.locked
	l.Mu.Lock()
	defer l.Mu.Unlock()
	l.AtTail = false
	if e.Time != 0 {
		l.LastEntry = time.UnixMicro(e.Time)
		l.Set.Seen(e.Host, e.Unit, e.Time*1000)
	}
	if r != parse.Ignored {
		p.stream.Resolve(e.Time, e.Host, e.Unit, s)
	}
	se := l.Set.Apply(r, s)
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
