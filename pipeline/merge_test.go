package pipeline

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal"
)

// fakeSource hands out its lines with a cursor each, then io.EOF (or nothing, following).
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

// Merged, each entry's cursor goes to the sink of the source it came from, and the files'
// unreadable records reach the report.
func TestMergeRoutesCursors(t *testing.T) {
	files := &fakeSource{lines: []string{"f1", "f2"}, cursors: []string{"0:10", "0:20"}, follow: true, unreadable: 3}
	j := &fakeSource{lines: []string{"j1", "j2", "j3"}, cursors: []string{"s=a;i=1", "s=a;i=2", "s=a;i=3"}}
	fc, jc := &countingCursor{}, &countingCursor{}
	src, sink := Merge(files, fc, j, jc)
	st := NewState(StateOptions{})
	if err := New(st, Options{Year: 2026}).Follow(context.Background(), src, sink); err != nil {
		t.Fatal(err)
	}
	if fc.marks != 2 || string(fc.last) != "0:20" || jc.marks != 3 || string(jc.last) != "s=a;i=3" {
		t.Fatalf("file sink %d marks (last %q), journal sink %d (last %q)", fc.marks, fc.last, jc.marks, jc.last)
	}
	if fc.flushes == 0 || jc.flushes == 0 {
		t.Fatal("both sinks must be flushed at the end")
	}
	if in := st.Report().Input; in.Lines != 5 || in.Unreadable != 3 {
		t.Fatalf("input %+v, want 5 lines and the files' 3 unreadable records", in)
	}
}

// A backlog of file lines does not hold the journal up: it gets a turn every mergeRun entries.
func TestMergeInterleaves(t *testing.T) {
	files := &fakeSource{follow: true}
	for i := range 200 {
		files.lines = append(files.lines, "f")
		files.cursors = append(files.cursors, "0:"+string(rune('0'+i%10)))
	}
	j := &fakeSource{lines: []string{"j1", "j2"}, cursors: []string{"s=a;i=1", "s=a;i=2"}, follow: true}
	src, _ := Merge(files, &countingCursor{}, j, &countingCursor{})
	var e ingest.Entry
	for n := 1; n <= 2*mergeRun+2; n++ {
		if ok, _ := src.Next(&e, 0); !ok {
			t.Fatal("nothing")
		}
		if string(e.Message) == "j1" && n != mergeRun+1 {
			t.Fatalf("the journal's first entry came %d-th, want %d-th", n, mergeRun+1)
		}
	}
	if j.i != 2 {
		t.Fatalf("the journal gave %d entries among %d", j.i, 2*mergeRun+2)
	}
}
