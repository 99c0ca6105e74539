package pipeline

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/file"
)

// Journal is a source of entries as the live loop reads it. Lifecycle: one goroutine (the
// pipeline's) calls Next until it is done, then its owner closes it; Next waits at most wait
// and returns false when nothing arrived, or io.EOF when a source that does not follow has
// reached its end.
type Journal interface {
	Next(e *ingest.Entry, wait time.Duration) (bool, error)
}

// CursorSink persists how far the pipeline got. Mark is called after an entry's effects are in
// the model; Flush makes the latest mark durable (at most every second, and on return).
type CursorSink interface {
	Mark(cursor []byte)
	Flush() error
}

// tickEvery paces live-only housekeeping (stale detection).
const tickEvery = 10 * time.Second

// activeWait is the reader's wait while entries are flowing (for activeFor after the last): a
// poll, since journald announces appends up to 250 ms late. A poll costs a wake-up of the
// reader and one of this goroutine: at 2,000 lines/s and 20 ms, the daemon used 2.0-2.3 % of a
// core through libsystemd without trimming the journal's pages and the write → /metrics p99
// was 32-45 ms (target 50); a 25 ms poll took the p99 to 36-46 ms.
const (
	activeWait = 20 * time.Millisecond
	activeFor  = time.Second
)

// Follow reads src until ctx ends or src ends (io.EOF), marking each entry's cursor in cur
// once its effects are in the model. It returns nil then, after a final cursor flush, or src's
// error.
func (p *Pipeline) Follow(ctx context.Context, src Journal, cur CursorSink) error {
	p.following = true
	var lastFlush, lastTick, lastEntry, lastStats time.Time
	for ctx.Err() == nil {
		// journald tells readers about appends on a 250 ms coalescing timer; while entries are
		// flowing, short waits let the reader find them sooner (tens of ms from write to
		// /metrics), and a second after the last one the loop is back to one wake-up a second.
		wait := time.Second
		if p.now().Sub(lastEntry) < activeFor {
			wait = activeWait
		}
		ok, err := src.Next(&p.entry, wait)
		if errors.Is(err, io.EOF) { // a source that does not follow has ended
			p.EndInput()
			p.atTail()
			break
		}
		if err != nil {
			return err
		}
		if ok {
			lastEntry = p.now()
			p.Apply(&p.entry)
			if len(p.entry.Cursor) > 0 {
				cur.Mark(p.entry.Cursor)
			}
		} else {
			p.atTail()
		}
		now := p.now()
		// Every second, not only after an entry: a quiet first start has positions to save too
		// (where its files began), which a SIGKILL must not lose (issue 27, item 6). The sinks
		// write nothing when nothing changed.
		if now.Sub(lastFlush) >= time.Second {
			p.flush(cur)
			lastFlush = now
		}
		if now.Sub(lastStats) >= time.Second {
			p.copyStats(src)
			lastStats = now
		}
		if now.Sub(lastTick) >= tickEvery {
			p.state.Tick(now)
			lastTick = now
		}
	}
	p.flush(cur)
	p.copyStats(src)
	return nil
}

// copyStats adds the records a source skipped since the last call (TakeUnreadable) to the
// report's unreadable count. Each source exports its own counters (its prometheus.Collector).
func (p *Pipeline) copyStats(src Journal) {
	if u, ok := src.(UnreadableCounter); ok {
		if n := u.TakeUnreadable(); n > 0 {
			p.state.CountUnreadable(n)
		}
	}
}

// flush saves the cursor; a failure (read-only or full state directory) is logged and retried
// at the next flush, never fatal: losing the cursor costs re-reading, not correctness. A
// failure of the file positions alone is counted by their store
// (specwatch_file_position_save_failures_total), not as a journal cursor failure.
func (p *Pipeline) flush(cur CursorSink) {
	if err := cur.Flush(); err != nil {
		p.flushFails++
		what := "the file positions"
		if !errors.Is(err, file.ErrSave) {
			what = "the journal cursor"
			p.state.mu.Lock()
			p.state.cursorSaveFailures++
			p.state.mu.Unlock()
		}
		if p.flushFails == 1 || p.flushFails%60 == 0 {
			p.log.Warn().Err(err).Int64("failures", p.flushFails).Msg("cannot save " + what + "; will retry")
		}
		return
	}
	if p.flushFails > 0 {
		p.log.Info().Int64("after_failures", p.flushFails).Msg("read positions saved again")
		p.flushFails = 0
	}
}

// atTail records that the reader has nothing more right now: the figures describe the present.
func (p *Pipeline) atTail() {
	p.flushJoin(p.now().Add(-joinHold).UnixNano())
	p.state.mu.Lock()
	p.state.atTail, p.state.caughtUp = true, true
	p.state.mu.Unlock()
	if !p.caughtUp {
		p.caughtUp = true
		p.log.Info().Msg("caught up with the journal")
	}
}

// ReaderJournal adapts an input read to its end (a file) to the live loop: Next never waits,
// and the input's end ends Follow.
func ReaderJournal(r Reader) Journal { return readerJournal{r} }

type readerJournal struct{ r Reader }

func (j readerJournal) Next(e *ingest.Entry, _ time.Duration) (bool, error) {
	if err := j.r.Next(e); err != nil {
		return false, err
	}
	return true, nil
}
