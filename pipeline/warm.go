package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/specwatch/specwatch/ingest"
)

// Window is a source's entries before a saved position, as a warm restart replays them: from
// the start of the warm-up window up to and including the entry the position names (its
// effects were in the model when the position was saved). The source decides how it finds
// them (the journal: a second reader from the window's start time, ending at the saved cursor;
// files: each file from the offset of the window's start to its saved offset).
//
// Lifecycle: its owner opens it for one warm-up and closes it afterwards; one goroutine (the
// pipeline's, in Warm) calls Next until it returns io.EOF (the saved position was reached or
// passed) or another error. Next waits at most wait; ok=false with a nil error means nothing
// more is there now, which Warm takes as the end too: the entries of a window were all
// written before the process started. e's slices are valid until the next call.
type Window interface {
	Next(e *ingest.Entry, wait time.Duration) (ok bool, err error)
}

// WarmOptions bound Warm.
type WarmOptions struct {
	// MaxDuration bounds the replay's wall time (clock: Options.Now); the model is then
	// rebuilt from the part of the window read so far, and live reading still resumes exactly
	// at the saved position. Zero means no bound beyond the window itself.
	MaxDuration time.Duration
}

// WarmStats is what Warm did, for the log.
type WarmStats struct {
	Entries  int64         // entries replayed
	First    time.Time     // the first replayed entry's time (zero: none)
	Took     time.Duration // wall time
	TimedOut bool          // MaxDuration ended the replay before the window's end
}

// warmWait is Window.Next's wait: the window is on disk, so nothing more within it means its
// end. It is long enough for a journalctl subprocess to start answering; a window normally ends
// at the saved entry itself, without waiting.
const warmWait = 2 * time.Second

// Warm rebuilds the model from w before the live loop starts: every entry is applied as Follow
// would apply it (series, fits, baselines, detectors, unit activity for stale), but the step
// histogram is not fed, and at the end every counter the exporter serves is zeroed, so a
// restart counts no line twice. Call it once, on a fresh State, before Follow on the same
// Pipeline (whose parse stream and step bookkeeping then continue). It returns when w ends,
// at the time bound, or when ctx ends (ctx's error; the model is then partial, and the caller
// should stop).
func (p *Pipeline) Warm(ctx context.Context, w Window, o WarmOptions) (st WarmStats, err error) {
	start := p.now()
	p.following, p.warming = true, true
	defer func() {
		p.warming = false
		p.state.mu.Lock()
		p.state.set.ForgetCounts()
		p.state.mu.Unlock()
		p.state.Tick(p.now())
		st.Took = p.now().Sub(start)
	}()
	for {
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
		if o.MaxDuration > 0 && st.Entries%1024 == 0 && p.now().Sub(start) > o.MaxDuration {
			st.TimedOut = true
			return st, nil
		}
		var ok bool
		ok, err = w.Next(&p.entry, warmWait)
		if errors.Is(err, io.EOF) || (err == nil && !ok) {
			return st, nil
		}
		if err != nil {
			return st, fmt.Errorf("warm-up window: %w", err)
		}
		if st.Entries == 0 && p.entry.Time != 0 {
			st.First = time.UnixMicro(p.entry.Time)
		}
		st.Entries++
		p.Apply(&p.entry)
	}
}
