package file

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
)

// follower drives a Source the way the pipeline does — Next, then Mark the entry's cursor —
// on a clock that the Source's waits advance, so nothing sleeps.
type follower struct {
	t     *testing.T
	dir   string
	now   time.Time
	store *Store
	src   *Source
	o     Options
	lines []string
	units []string
}

// followIn is a follower of globs (relative to a new temporary directory) with o.
func followIn(t *testing.T, o Options, globs ...string) *follower {
	t.Helper()
	dir := t.TempDir()
	for _, g := range globs {
		o.Globs = append(o.Globs, filepath.Join(dir, g))
	}
	return newFollower(t, dir, o)
}

func newFollower(t *testing.T, dir string, o Options) *follower {
	t.Helper()
	f := &follower{t: t, dir: dir, now: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)}
	state := filepath.Join(dir, "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	f.store = NewStore(state)
	pos, _, err := f.store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if o.Positions == nil {
		o.Positions = pos
	}
	o.Store, o.Now, o.Wait = f.store, func() time.Time { return f.now }, func(d time.Duration) { f.now = f.now.Add(d) }
	if o.RotateWait == 0 {
		o.RotateWait = 2 * time.Second
	}
	f.o = o
	f.src = New(o)
	t.Cleanup(func() { f.src.Close() })
	return f
}

// restart is a new daemon process on the same state directory, after a flush.
func (f *follower) restart(flush bool) *follower {
	f.t.Helper()
	if flush {
		if err := f.store.Flush(); err != nil {
			f.t.Fatal(err)
		}
	}
	f.src.Close()
	o := f.o
	o.Positions, o.StartAtEnd = nil, false
	n := newFollower(f.t, f.dir, o)
	n.lines = f.lines
	return n
}

// drain reads until the files have been quiet for longer than a rotation wait.
func (f *follower) drain() {
	f.t.Helper()
	var e ingest.Entry
	for quiet := 0; quiet < 5; {
		ok, err := f.src.Next(&e, time.Second)
		if err != nil {
			f.t.Fatal(err)
		}
		if !ok {
			quiet++
			continue
		}
		quiet = 0
		f.lines = append(f.lines, string(e.Message))
		f.units = append(f.units, string(e.Unit))
		f.store.Mark(e.Cursor)
	}
}

// read takes at most n entries (a daemon killed in the middle of a stream).
func (f *follower) read(n int) {
	var e ingest.Entry
	for i := 0; i < n; i++ {
		ok, _ := f.src.Next(&e, time.Second)
		if !ok {
			continue
		}
		f.lines = append(f.lines, string(e.Message))
		f.store.Mark(e.Cursor)
	}
}

func (f *follower) path(name string) string { return filepath.Join(f.dir, name) }

func (f *follower) write(name string, from, to int) {
	f.t.Helper()
	w, err := os.OpenFile(f.path(name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		f.t.Fatal(err)
	}
	defer w.Close()
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %04d\n", i)
	}
	if _, err := w.WriteString(b.String()); err != nil {
		f.t.Fatal(err)
	}
}

// exactlyOnce checks that lines 1..n were read once each, in order.
func (f *follower) exactlyOnce(n int) {
	f.t.Helper()
	seen := map[string]int{}
	for _, l := range f.lines {
		seen[l]++
	}
	for i := 1; i <= n; i++ {
		if c := seen[fmt.Sprintf("line %04d", i)]; c != 1 {
			f.t.Fatalf("line %d read %d times (%d lines read: %q…)", i, c, len(f.lines), f.lines[:min(len(f.lines), 8)])
		}
	}
	if len(f.lines) != n {
		f.t.Fatalf("%d lines read, want %d", len(f.lines), n)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
