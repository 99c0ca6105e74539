package pipeline

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/specwatch/specwatch/ingest"
)

// Input is one source the live loop follows, and where its positions are saved.
type Input struct {
	// Kind names the source in the log ("journal", "files", "scrape", "forward_pass").
	Kind string
	// Name says what Cursor saves, for the log ("the journal cursor", "the file positions").
	Name   string
	Source ingest.Source
	// Cursor is marked with each entry's position once its effects are in the model; nil: the
	// source cannot resume (a replay).
	Cursor CursorSink
	// CountFailures adds Cursor's failed saves to the state's cursor failures (the journal's
	// specwatch_journal_cursor_save_failures_total); a store that counts its own leaves it false.
	CountFailures bool
}

// CursorSink persists how far the pipeline got. Mark is called after an entry's effects are in
// the model; Flush makes the latest mark durable (at most every second, and on return).
type CursorSink interface {
	Mark(cursor []byte)
	Flush() error
}

// Snapshotter keeps the model's state beside the inputs' positions, so that a restart continues
// from it (daemon/snapshot.go). Follow calls Save once, when it ends, right after the final
// flush saved every input's position, with the model's state as of those positions.
type Snapshotter interface {
	Save(state []byte)
}

// tickEvery paces live-only housekeeping (stale detection).
const tickEvery = 10 * time.Second

// Follow reads every input on a goroutine of its own (fanin.go) and applies their entries in
// this one, marking each entry's position in its input's cursor once its effects are in the
// model. It returns when ctx ends or every input has ended (io.EOF), after a final flush of
// the cursors, or with the first input's failure; its goroutines are done by then, so the
// inputs' owners may close them.
func (p *Pipeline) Follow(ctx context.Context, inputs ...Input) error {
	p.following = true
	p.sources = p.sources[:0]
	for _, in := range inputs {
		if in.Kind != "" {
			p.sources = append(p.sources, in.Kind)
		}
	}
	f := startFanIn(ctx, inputs)
	defer f.stop()
	// Housekeeping runs after each delivery, and every second on the real clock: an injected
	// clock (tests) moves only with the deliveries, which keeps a scripted run deterministic.
	var tick <-chan time.Time
	if p.realClock {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
	}
	idle := make([]bool, len(inputs)) // caught up (or ended) since its last entry
	live := len(inputs)
	failures := make([]int64, len(inputs))
	marks := make([]int64, len(inputs)) // entries marked since the last save, for the debug line
	var lastFlush, lastTick time.Time
	var err error
	for live > 0 && err == nil {
		var held *delivery
		select {
		case d := <-f.out:
			held = &d
			if d.unreadable > 0 {
				p.state.CountUnreadable(d.unreadable)
			}
			switch {
			case d.err == nil:
				idle[d.input] = false
				p.Apply(d.e)
				if c := inputs[d.input].Cursor; c != nil && len(d.e.Cursor) > 0 {
					c.Mark(d.e.Cursor)
					marks[d.input]++
				}
			case errors.Is(d.err, ingest.ErrCaughtUp):
				idle[d.input] = true
			case errors.Is(d.err, io.EOF) || ctx.Err() != nil:
				idle[d.input] = true
				live--
				if live == 0 { // every input has ended: none follows
					p.EndInput()
				}
			default:
				err = d.err
			}
		case <-tick:
		case <-ctx.Done():
			live = 0
		}
		if err == nil && all(idle) {
			p.atTail()
		}
		now := p.now()
		// Every second, not only after an entry: a quiet first start has positions to save too
		// (where its files began), which a SIGKILL must not lose (issue 27, item 6). The sinks
		// write nothing when nothing changed.
		if now.Sub(lastFlush) >= time.Second {
			p.flush(inputs, failures, marks)
			lastFlush = now
		}
		if now.Sub(lastTick) >= tickEvery {
			p.state.Tick(now)
			lastTick = now
		}
		// Released last: its source's next Next may move an injected clock this loop reads.
		if held != nil {
			f.ack(*held)
		}
	}
	// Only after a flush that saved every position: a state ahead of a position on disk would
	// apply its entries twice after a restart.
	p.saved = p.flush(inputs, failures, marks)
	if p.saved && p.snaps != nil {
		p.snaps.Save(p.state.AppendModel(nil))
	}
	return err
}

// Saved reports whether Follow's final flush saved every input's position (the shutdown line).
func (p *Pipeline) Saved() bool { return p.saved }

func all(b []bool) bool {
	for _, v := range b {
		if !v {
			return false
		}
	}
	return true
}

// flush saves the inputs' positions and reports whether every one was saved; a failure
// (read-only or full state directory) is logged and retried at the next flush, never fatal:
// losing a position costs re-reading, not correctness.
func (p *Pipeline) flush(inputs []Input, failures, marks []int64) bool {
	ok := true
	for i, in := range inputs {
		if in.Cursor == nil {
			continue
		}
		if err := in.Cursor.Flush(); err != nil {
			ok = false
			failures[i]++
			if in.CountFailures {
				p.state.mu.Lock()
				p.state.cursorSaveFailures++
				p.state.mu.Unlock()
			}
			if failures[i] == 1 || failures[i]%60 == 0 {
				p.log.Warn().Err(err).Int64("failures", failures[i]).Msg("cannot save " + in.Name + "; will retry")
			}
			continue
		}
		if failures[i] > 0 {
			p.log.Info().Int64("after_failures", failures[i]).Msg(in.Name + " saved again")
			failures[i] = 0
		}
		if marks[i] > 0 {
			p.log.Debug().Str("source", in.Kind).Int64("entries", marks[i]).Msg("saved " + in.Name)
			marks[i] = 0
		}
	}
	return ok
}

// atTail records that the readers have nothing more right now: the figures describe the present.
func (p *Pipeline) atTail() {
	p.flushJoin(p.now().Add(-joinHold).UnixNano())
	p.state.mu.Lock()
	p.state.atTail, p.state.caughtUp = true, true
	p.state.mu.Unlock()
	if !p.caughtUp {
		p.caughtUp = true
		// Every input, not "the journal": a daemon following files reads no journal.
		p.log.Info().Strs("sources", p.sources).Msg("caught up: every source has been read to its end")
	}
}

// ReaderSource adapts an input read to its end (a file) to the live loop: Next never waits,
// and the input's end ends it (io.EOF).
func ReaderSource(r Reader) ingest.Source { return readerSource{r} }

type readerSource struct{ r Reader }

func (s readerSource) Next(_ context.Context, e *ingest.Entry) error { return s.r.Next(e) }
func (s readerSource) Close() error                                  { return nil }
