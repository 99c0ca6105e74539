package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/sim"
)

// exportLog is the demo's three hours as `journalctl -o export` writes them (host, unit,
// cursor and time per entry, like the daemon's journal).
func exportLog(t *testing.T) []byte {
	t.Helper()
	sc := sim.Demo(1)
	sc.Format = sim.FormatExport
	var buf bytes.Buffer
	if _, err := sim.Generate(sc, &buf, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type countingCursor struct {
	marks   int
	last    []byte
	flushes int
}

func (c *countingCursor) Mark(cur []byte) { c.marks++; c.last = append(c.last[:0], cur...) }
func (c *countingCursor) Flush() error    { c.flushes++; return nil }

func reportJSON(t *testing.T, s *State) string {
	t.Helper()
	b, err := json.Marshal(s.Report())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOfflineEqualsFollowed: the same log read to its end (analyze) and followed (run) gives
// the same report, every entry's cursor is marked once, and the follow ends with a flush.
func TestOfflineEqualsFollowed(t *testing.T) {
	data := exportLog(t)
	offline := NewState(StateOptions{})
	if err := New(offline, Options{Year: 2026}).ReadAll(ingest.NewReader(bytes.NewReader(data), ingest.ReaderOptions{}), "demo"); err != nil {
		t.Fatal(err)
	}
	followed := NewState(StateOptions{})
	rd := ingest.NewReader(bytes.NewReader(data), ingest.ReaderOptions{})
	cur := &countingCursor{}
	if err := New(followed, Options{Year: 2026}).Follow(context.Background(), Input{Source: ReaderSource(rd), Cursor: cur}); err != nil {
		t.Fatal(err)
	}
	a, b := reportJSON(t, offline), reportJSON(t, followed)
	if a != b {
		t.Errorf("reports differ:\noffline  %.400s\nfollowed %.400s", a, b)
	}
	in := offline.Report().Input
	if in.Lines == 0 || in.Samples == 0 {
		t.Fatalf("nothing read: %+v", in)
	}
	if int64(cur.marks) != rd.Stats().Entries || cur.flushes == 0 || len(cur.last) == 0 {
		t.Errorf("%d marks for %d entries, %d flushes, last cursor %q", cur.marks, rd.Stats().Entries, cur.flushes, cur.last)
	}
	if st := followed.Status(); !st.CaughtUp {
		t.Errorf("status after the follow reached the end: %+v", st)
	}
}

// TestSinceUntil: samples outside [Since, Until) are counted as out of range, not applied.
func TestSinceUntil(t *testing.T) {
	data := exportLog(t)
	all := NewState(StateOptions{})
	if err := New(all, Options{Year: 2026}).ReadAll(ingest.NewReader(bytes.NewReader(data), ingest.ReaderOptions{}), "demo"); err != nil {
		t.Fatal(err)
	}
	r := all.Report()
	first, last := r.Series[0].First, r.Series[0].Last
	mid := first.Add(last.Sub(first) / 2)
	part := NewState(StateOptions{})
	if err := New(part, Options{Year: 2026, Since: mid}).ReadAll(ingest.NewReader(bytes.NewReader(data), ingest.ReaderOptions{}), "demo"); err != nil {
		t.Fatal(err)
	}
	pin, ain := part.Report().Input, r.Input
	if pin.OutOfRange == 0 || pin.Samples+pin.OutOfRange != ain.Samples {
		t.Errorf("since %s: %d samples + %d out of range, want %d in all", mid, pin.Samples, pin.OutOfRange, ain.Samples)
	}
}
