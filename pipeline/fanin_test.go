package pipeline

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal"
)

// fakeSource hands out its lines with a cursor each, then io.EOF (or, following, nothing).
type fakeSource struct {
	lines, cursors []string
	i              int
	follow         bool
	unreadable     int64
}

func (f *fakeSource) Next(e *ingest.Entry, _ time.Duration) (bool, error) {
	if f.i == len(f.lines) {
		if f.follow {
			return false, nil
		}
		return false, io.EOF
	}
	*e = ingest.Entry{Message: []byte(f.lines[f.i]), Cursor: []byte(f.cursors[f.i])}
	f.i++
	return true, nil
}

func (f *fakeSource) Stats() journal.Stats { return journal.Stats{} }

func (f *fakeSource) TakeUnreadable() int64 { n := f.unreadable; f.unreadable = 0; return n }

// TestFanInRoutesCursors: with three inputs, each entry's cursor goes to the sink of the input
// it came from, every sink is flushed at the end, each source's skipped records reach the
// report, and Follow returns once every input has ended.
func TestFanInRoutesCursors(t *testing.T) {
	files := &fakeSource{lines: []string{"f1", "f2"}, cursors: []string{"0:10", "0:20"}, unreadable: 3}
	j := &fakeSource{lines: []string{"j1", "j2", "j3"}, cursors: []string{"s=a;i=1", "s=a;i=2", "s=a;i=3"}}
	third := &fakeSource{lines: []string{"x1"}, cursors: []string{"x"}, unreadable: 2}
	fc, jc, xc := &countingCursor{}, &countingCursor{}, &countingCursor{}
	st := NewState(StateOptions{})
	err := New(st, Options{Year: 2026}).Follow(context.Background(),
		Input{Source: ingest.Poll(files, ingest.PollOptions{}), Cursor: fc},
		Input{Source: ingest.Poll(j, ingest.PollOptions{}), Cursor: jc},
		Input{Source: ingest.Poll(third, ingest.PollOptions{}), Cursor: xc})
	if err != nil {
		t.Fatal(err)
	}
	if fc.marks != 2 || string(fc.last) != "0:20" || jc.marks != 3 || string(jc.last) != "s=a;i=3" || xc.marks != 1 {
		t.Fatalf("marks: files %d (last %q), journal %d (last %q), third %d", fc.marks, fc.last, jc.marks, jc.last, xc.marks)
	}
	if fc.flushes == 0 || jc.flushes == 0 || xc.flushes == 0 {
		t.Fatal("every sink must be flushed at the end")
	}
	if in := st.Report().Input; in.Lines != 6 || in.Unreadable != 5 {
		t.Fatalf("input %+v, want 6 lines and the sources' 5 unreadable records", in)
	}
}

// gate is a following source that blocks in Next until the test hands it an entry, as a
// journal waiting for journald does: the loop must neither poll it nor hold the others up.
type gate struct{ entries chan string }

func (g *gate) Next(ctx context.Context, e *ingest.Entry) error {
	select {
	case m := <-g.entries:
		*e = ingest.Entry{Message: []byte(m), Cursor: []byte(m)}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) Close() error { return nil }

// TestFanInBlockingSources: two sources that block until they have an entry are applied in
// the order their entries come, each marked in its own sink; a source that ends (io.EOF)
// leaves the other followed; ctx's end returns nil after a final flush, with every source's
// goroutine done, so that its owner may close it.
func TestFanInBlockingSources(t *testing.T) {
	a, b := &gate{entries: make(chan string)}, &gate{entries: make(chan string)}
	ended := ReaderSource(ingest.NewReader(strings.NewReader(""), ingest.ReaderOptions{}))
	ac, bc := &countingCursor{}, &countingCursor{}
	st := NewState(StateOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- New(st, Options{Year: 2026}).Follow(ctx, Input{Source: a, Cursor: ac}, Input{Source: b, Cursor: bc}, Input{Source: ended})
	}()
	// A send returns once that source's goroutine took the entry, and the next send to the
	// same source only after the loop applied and marked the one before (the ack): a and b
	// interleave in any order, each in its own order.
	a.entries <- "a1"
	b.entries <- "b1"
	a.entries <- "a2"
	b.entries <- "b2"
	a.entries <- "a3" // taken only after a2 was applied and marked
	b.entries <- "b3"
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Follow did not return after ctx ended")
	}
	// a3 and b3 were taken by their goroutines; whether the loop applied them before ctx's end
	// is a race by design, but a marked entry is always an applied one.
	if ac.marks < 2 || bc.marks < 2 || ac.flushes == 0 || bc.flushes == 0 {
		t.Fatalf("marks a %d b %d, flushes a %d b %d", ac.marks, bc.marks, ac.flushes, bc.flushes)
	}
	if in := st.Report().Input; in.Lines != int64(ac.marks+bc.marks) {
		t.Fatalf("%d lines applied, %d marked: every applied entry is marked once", in.Lines, ac.marks+bc.marks)
	}
}

// TestFanInFailure: a source's failure ends Follow with that error, after its goroutines.
func TestFanInFailure(t *testing.T) {
	boom := errors.New("journal vanished")
	g := &gate{entries: make(chan string)}
	err := New(NewState(StateOptions{}), Options{Year: 2026}).Follow(context.Background(),
		Input{Source: g}, Input{Source: failing{boom}})
	if !errors.Is(err, boom) {
		t.Fatalf("Follow returned %v, want %v", err, boom)
	}
}

type failing struct{ err error }

func (f failing) Next(context.Context, *ingest.Entry) error { return f.err }
func (f failing) Close() error                              { return nil }
