//go:build cgo && linux

package ingest

import (
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testjournal"
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
		lines(i/2, i/2+1, unit)(0, e)
	})
	src := openJ(t, JournalOptions{Dir: dir, Backend: BackendSDJournal, Units: []string{"a.service"}, Since: time.Unix(1, 0)})
	checkSequence(t, readN(t, src, n, time.Minute), n)
	expectQuiet(t, src, 100*time.Millisecond)
	if st := src.Stats(); st.Recycles != 2 || st.Duplicates != 0 || st.CursorMissing != 0 || st.Entries != int64(n) {
		t.Fatalf("stats %+v, want 2 recycles and every entry once", st)
	}
}

// BenchmarkJournalRecycle is the cost of one recycle (close, reopen, seek to the last cursor)
// on a directory of eight journal files.
func BenchmarkJournalRecycle(b *testing.B) {
	dir := b.TempDir()
	for f := range 8 {
		testjournal.BuildFileFunc(b, dir, 2000, lines(f*2000, f*2000+2000, "a.service"))
	}
	src, err := OpenJournal(JournalOptions{Dir: dir, Backend: BackendSDJournal, Units: []string{"a.service"}, Since: time.Unix(1, 0)})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	var e Entry
	for range 5000 {
		if ok, err := src.Next(&e, time.Second); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
	s := src.(*sdSource)
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
