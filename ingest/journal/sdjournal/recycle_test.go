//go:build cgo && linux

package sdjournal

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// TestJournalRecycle: the sdjournal handle is closed and reopened every recycleFollow entries
// (to release libsystemd's file mappings); across 2.5 recycles every entry still arrives once
// and in order, other units' entries in between included.
func TestJournalRecycle(t *testing.T) {
	dir := t.TempDir()
	n := recycleFollow*5/2 + 7
	testjournal.BuildFileFunc(t, dir, 2*n, func(i int, e *testjournal.Entry) {
		unit := "a.service"
		if i%2 == 1 {
			unit = "noise.service"
		}
		journaltest.Lines(i/2, i/2+1, unit)(0, e)
	})
	src := openJ(t, Name, backend.Options{Dir: dir, Units: []string{"a.service"}, Head: true})
	journaltest.CheckSequence(t, journaltest.ReadN(t, src, n, time.Minute), n)
	journaltest.ExpectQuiet(t, src, 100*time.Millisecond)
	if st := src.Stats(); st.Recycles != 2 || st.Duplicates != 0 || st.CursorMissing != 0 || st.Entries != int64(n) {
		t.Fatalf("stats %+v, want 2 recycles and every entry once", st)
	}
}

// BenchmarkJournalRecycle is the cost of one recycle (close, reopen, seek to the last cursor)
// on a directory of eight journal files.
func BenchmarkJournalRecycle(b *testing.B) {
	dir := b.TempDir()
	for f := range 8 {
		testjournal.BuildFileFunc(b, dir, 2000, journaltest.Lines(f*2000, f*2000+2000, "a.service"))
	}
	src, err := Open(backend.Options{Dir: dir, Units: []string{"a.service"}, Head: true}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	var e ingest.Entry
	for range 5000 {
		if ok, err := src.Next(&e, time.Second); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
	s := src
	b.ResetTimer()
	for range b.N {
		if err := s.recycle(); err != nil {
			b.Fatal(err)
		}
		if ok, err := src.Next(&e, time.Second); !ok || err != nil { // the resume settles here
			b.Fatal(ok, err)
		}
	}
}

// TestJournalReadBatches: reading to the end (NoFollow), entries come in batches of batchRead,
// each with its cursor. Every entry arrives once and in order: across batches of 600 KiB
// messages, and across a recycle forced at a batch's end (the new handle resumes after the last
// entry returned).
func TestJournalReadBatches(t *testing.T) {
	dir := t.TempDir()
	n := 3*batchRead + 100
	big := func(i int) bool { return i%900 == 450 }
	testjournal.BuildFileFunc(t, dir, 2*n, func(i int, e *testjournal.Entry) {
		if i%2 == 1 {
			journaltest.Lines(i, i+1, "noise.service")(0, e)
			return
		}
		journaltest.Lines(i/2, i/2+1, "a.service")(0, e)
		if big(i / 2) {
			e.Message = append(bytes.Repeat([]byte("x"), 600<<10), e.Message...)
		}
	})
	src := openJ(t, Name, backend.Options{Dir: dir, Units: []string{"a.service"}, NoFollow: true, Head: true})
	s := src.(*Source)
	var got []journaltest.Owned
	var e ingest.Entry
	recycled := false
	for {
		ok, err := src.Next(&e, time.Second)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || !ok {
			t.Fatalf("after %d entries: ok=%v err=%v", len(got), ok, err)
		}
		if i := len(got); big(i) != (len(e.Message) > 600<<10) {
			t.Fatalf("entry %d: message of %d bytes", i, len(e.Message))
		}
		if len(e.Cursor) == 0 {
			t.Fatalf("entry %d has no cursor", len(got))
		}
		got = append(got, journaltest.Own(&e))
		// Where Next recycles: at a batch's end.
		if len(got) >= batchRead && !recycled && s.batch.served() {
			if len(s.batch.ents) != batchRead {
				t.Fatalf("a batch of %d entries, want %d", len(s.batch.ents), batchRead)
			}
			if err := s.recycle(); err != nil {
				t.Fatal(err)
			}
			recycled = true
		}
	}
	journaltest.CheckSequence(t, got, n)
	if st := src.Stats(); st.Recycles != 1 || st.Duplicates != 0 || st.CursorMissing != 0 || st.Entries != int64(n) {
		t.Fatalf("stats %+v, want 1 recycle and every entry once", st)
	}
}
