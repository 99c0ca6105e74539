package journal

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/specwatch/specwatch/ingest"
)

// fallback is the Source Open returns: it reads with the first backend of its chain and, when
// that one cannot open the journal or gives up on it (Next's error other than io.EOF and
// ErrClosed: recovery inside the backend failed), closes it and goes on with the next, after
// the last entry returned: every backend reads and writes libsystemd's cursors, so the next
// one resumes exactly there, as a restart would. So a journal file that one backend cannot
// read fails neither analyze nor run while another backend can read it (issue 16: libsystemd
// giving up on one of systemd's corrupted test files where journalctl read it). Only when the
// last backend fails too is the error returned.
//
// Counters carry over (Stats adds those of the backends left behind to the current one's);
// each change of backend is one Reopens and one warning.
type fallback struct {
	opts  Options   // as given to Open
	next  []Backend // the backends still to try, in order
	open  func(Backend, Options) (Source, error)
	cur   Source
	last  []byte    // cursor of the last entry returned
	since time.Time // Open's time: a tail start resumes there when no entry was returned yet
	prev  Stats     // the counters of the backends left behind
}

// openChain opens the first backend of chain that opens; the others are the fallbacks.
func openChain(opts Options, chain []Backend, open func(Backend, Options) (Source, error)) (Source, error) {
	f := &fallback{opts: opts, next: chain, open: open, since: time.Now()}
	if err := f.advance(); err != nil {
		return nil, err
	}
	return f, nil
}

// advance replaces the backend in use with the next one of the chain that opens, positioned
// after the last entry returned; with none left, it returns the last one's error.
func (f *fallback) advance() error {
	o := f.opts
	switch {
	case f.last != nil:
		o.Start = AfterCursor(string(f.last), o.Start)
	case f.cur != nil && o.Start.at == tail && o.Start.cursor == "":
		o.Start = Since(f.since) // nothing returned yet: what was written since Open
	}
	var err error
	for len(f.next) > 0 {
		b := f.next[0]
		f.next = f.next[1:]
		var src Source
		if src, err = f.open(b, o); err == nil {
			if f.cur != nil {
				f.prev = add(f.prev, f.cur.Stats())
				f.prev.Reopens++
				f.cur.Close()
			}
			f.cur = src
			return nil
		}
		if len(f.next) > 0 {
			f.warnf("the %s backend cannot open it (%v); trying the %s backend", b, err, f.next[0])
		}
	}
	return err
}

func (f *fallback) warnf(format string, args ...any) {
	if f.opts.Warn == nil {
		return
	}
	name := "the system journal"
	if f.opts.Dir != "" {
		name = "journal " + f.opts.Dir
	}
	f.opts.Warn(name + ": " + fmt.Sprintf(format, args...))
}

// Next implements Source.
func (f *fallback) Next(e *ingest.Entry, wait time.Duration) (bool, error) {
	for {
		ok, err := f.cur.Next(e, wait)
		if err == nil || errors.Is(err, io.EOF) || errors.Is(err, ErrClosed) {
			if ok && len(e.Cursor) > 0 {
				f.last = append(f.last[:0], e.Cursor...)
			}
			return ok, err
		}
		if len(f.next) == 0 {
			return false, err
		}
		where := ""
		if f.last != nil {
			where = " after cursor " + string(f.last)
		}
		f.warnf("the %s backend gave up (%v); reading on with the %s backend%s", f.cur.Stats().Backend, err, f.next[0], where)
		if aerr := f.advance(); aerr != nil {
			return false, fmt.Errorf("%w (no other backend could read it either: %v)", err, aerr)
		}
	}
}

// Close implements Source.
func (f *fallback) Close() error { return f.cur.Close() }

// Stats implements Source: the current backend's, with the counts of those left behind added.
func (f *fallback) Stats() Stats {
	st := f.cur.Stats()
	b := st.Backend
	st = add(st, f.prev)
	st.Backend = b
	return st
}

// Unwrap returns the backend in use (tests look at its own methods).
func (f *fallback) Unwrap() Source { return f.cur }

func add(a, b Stats) Stats {
	a.Entries += b.Entries
	a.Reopens += b.Reopens
	a.Recycles += b.Recycles
	a.Invalidations += b.Invalidations
	a.CursorMissing += b.CursorMissing
	a.LostEntries += b.LostEntries
	a.Duplicates += b.Duplicates
	a.Unreadable += b.Unreadable
	a.BadFiles += b.BadFiles
	a.Waits += b.Waits
	return a
}
