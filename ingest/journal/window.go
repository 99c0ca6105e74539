package journal

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
)

// Window is the journal before a saved cursor: the entries from the cursor's time minus a
// warm-up span up to and including the cursor's own entry, which a warm restart replays into
// an empty model (pipeline.Warm) before the live Source resumes after the same cursor. It
// reads with a second Source of the same journal, matches and backend, opened at the
// window's start time.
//
// The window ends at the cursor's entry: the window's reader merges the journal's files in the
// order the live reader does, so what it returned before that entry is what the live reader
// skips, and nothing is read by both. When the entry is gone (vacuumed), the window ends at
// the first entry after it — a later sequence number of the same writer, or a later realtime
// stamp of another (a directory of several hosts) — or at the end of what the journal holds.
// A clock skewed between writers can end it early; that costs history, never a line.
//
// Lifecycle: OpenWindow, Next until io.EOF from one goroutine, Close.
type Window struct {
	src  Source
	stop backend.CursorPos
	at   string // the cursor
	done bool
}

// ErrNoWindow is OpenWindow's answer for a cursor without a time: there is nothing to replay.
var ErrNoWindow = errors.New("journal: the saved cursor carries no time to start a warm-up window from")

// OpenWindow opens the window of span before cursor. opts says which journal and entries,
// as for the live Source; its Start and NoFollow are replaced.
func OpenWindow(opts Options, cursor string, span time.Duration) (*Window, error) {
	pos, ok := backend.ParseCursor([]byte(cursor))
	if !ok || span <= 0 {
		return nil, ErrNoWindow
	}
	at := time.UnixMicro(int64(pos.Realtime))
	opts.Start = Since(at.Add(-span))
	opts.NoFollow = false // NoFollow may leave cursors out, and the window's end is found by them
	src, err := Open(opts)
	if err != nil {
		return nil, fmt.Errorf("journal: warm-up window before %s: %w", at.UTC().Format(time.RFC3339), err)
	}
	pos.SeqnumID = append([]byte(nil), pos.SeqnumID...)
	return &Window{src: src, stop: pos, at: cursor}, nil
}

// End is the time of the cursor's entry, where the window ends.
func (w *Window) End() time.Time { return time.UnixMicro(int64(w.stop.Realtime)) }

// Next returns the window's next entry, or io.EOF past its end. ok=false with a nil error
// means the journal had nothing more within wait, which is also the window's end.
func (w *Window) Next(e *ingest.Entry, wait time.Duration) (bool, error) {
	if w.done {
		return false, io.EOF
	}
	ok, err := w.src.Next(e, wait)
	if err != nil || !ok {
		return ok, err
	}
	if string(e.Cursor) == w.at {
		w.done = true // the saved entry itself: its effects were in the model
		return true, nil
	}
	if w.after(e) {
		w.done = true
		return false, io.EOF
	}
	return true, nil
}

// after reports whether e comes after the cursor's entry.
func (w *Window) after(e *ingest.Entry) bool {
	p, ok := backend.ParseCursor(e.Cursor)
	if ok && string(p.SeqnumID) == string(w.stop.SeqnumID) {
		return p.Seqnum > w.stop.Seqnum
	}
	return e.Time > int64(w.stop.Realtime)
}

// Stats are the window reader's counters (not the daemon's: its entries were counted before).
func (w *Window) Stats() Stats { return w.src.Stats() }

// Close releases the window's reader.
func (w *Window) Close() error { return w.src.Close() }
