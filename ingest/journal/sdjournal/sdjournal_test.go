//go:build cgo && linux

package sdjournal

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/ingest/journal/journalctl"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// TestSDJournalFastPath: this backend and the journalctl backend read the testdata journal
// as the export reader reads its export text: binary and 5 KB messages, repeated fields,
// entries without a unit.
func TestSDJournalFastPath(t *testing.T) {
	// ingest's fixture: the journal export text its Reader is tested on (made with the others)
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "journal.export"))
	if err != nil {
		t.Fatal(err)
	}
	want := journaltest.ReadAll(t, data)
	dir := t.TempDir()
	testjournal.BuildFileFromExport(t, dir, bytes.NewReader(data))

	read := func(t *testing.T, b string) []journaltest.Owned {
		src := openJ(t, b, backend.Options{Dir: dir, Head: true})
		var out []journaltest.Owned
		var e ingest.Entry
		for {
			ok, err := src.Next(&e, 300*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return out
			}
			o := journaltest.Own(&e)
			if o.Cursor == "" {
				t.Fatalf("entry without cursor: %v", o)
			}
			o.Cursor = "" // journal-remote assigned new cursors
			out = append(out, o)
		}
	}
	for i := range want {
		want[i].Cursor = ""
	}
	for _, c := range []struct {
		name string
		b    string
	}{{"sdjournal", Name}, {"journalctl", journalctl.Name}} {
		t.Run(c.name, func(t *testing.T) {
			got := read(t, c.b)
			if len(got) != len(want) {
				t.Fatalf("%d entries, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("entry %d:\n got %v\nwant %v", i, got[i], want[i])
				}
			}
		})
	}
}

// TestSDJournalLargeMessage: a message above libsystemd's default 64 KiB data threshold
// arrives whole (dataThreshold).
func TestSDJournalLargeMessage(t *testing.T) {
	j := journaltest.StartJournald(t)
	src := openJ(t, Name, backend.Options{Dir: j.Dir(), Identifiers: []string{"big"}})
	big := bytes.Repeat([]byte("0123456789abcdef"), 300<<10/16) // 300 KiB
	j.Write("", "big", big)
	j.Write("", "big", []byte("small after"))
	got := journaltest.ReadN(t, src, 2, 10*time.Second)
	if got[0].Message != string(big) || got[1].Message != "small after" {
		t.Fatalf("message of %d bytes, want %d; then %q", len(got[0].Message), len(big), got[1].Message)
	}
}

// TestSDJournalOtherGoroutine: the handle lives on a thread of its own (the owner's), so a
// source may be handed from goroutine to goroutine (one at a time), and that thread is not the
// caller's.
func TestSDJournalOtherGoroutine(t *testing.T) {
	j := journaltest.StartJournald(t)
	src := openJ(t, Name, backend.Options{Dir: j.Dir(), Identifiers: []string{"x"}})
	j.Write("", "x", []byte("line 0"))
	j.Write("", "x", []byte("line 1"))
	first := journaltest.ReadN(t, src, 1, 10*time.Second)
	owner := src.(*Source).own.tid
	if owner == 0 || owner == syscall.Gettid() {
		t.Fatalf("owner thread %d, caller's %d", owner, syscall.Gettid())
	}
	done := make(chan []journaltest.Owned)
	go func() { done <- journaltest.ReadN(t, src, 1, 10*time.Second) }()
	if second := <-done; first[0].Message != "line 0" || second[0].Message != "line 1" {
		t.Fatalf("read %q then %q", first[0].Message, second[0].Message)
	}
}

// TestSDJournalLocalOpens: the local system journal opens (empty here, without a system
// journald) and follows without error.
func TestSDJournalLocalOpens(t *testing.T) {
	if _, err := os.Stat("/etc/machine-id"); err != nil {
		t.Skip("no machine id")
	}
	src := openJ(t, Name, backend.Options{Units: []string{"specwatch-test-none.service"}})
	journaltest.ExpectQuiet(t, src, 50*time.Millisecond)
}

// faulty makes an sdjournal source fail as told: at the reads numbered in next (sd_journal_next
// failing) and fields (the entry's fields failing), counting reads from 1.
func faulty(t *testing.T, src journaltest.Source, next, fields map[int]bool) {
	s, ok := src.(*Source)
	if !ok {
		t.Skip("fault injection needs the sdjournal backend")
	}
	reads := 0
	s.fault = func(advanced bool) error {
		if !advanced {
			reads++
			if next[reads] {
				return fmt.Errorf("moving to the next entry: %w", syscall.EBADMSG)
			}
			return nil
		}
		if fields[reads] {
			return fmt.Errorf("%w: %w", errFieldRead, syscall.EIO)
		}
		return nil
	}
}

// TestSDJournalReopenOnErrors: read errors close the handle and reopen it at the last
// cursor; an entry whose fields fail again after the reopen is skipped and counted, not
// retried forever.
func TestSDJournalReopenOnErrors(t *testing.T) {
	j := journaltest.StartJournald(t)
	for i := range 20 {
		j.Write("a.service", "a", journaltest.Numbered("a", i))
	}
	j.Sync()
	var warned []string
	src := openJ(t, Name, backend.Options{Dir: j.Dir(), Units: []string{"a.service"},
		Warn: func(m string) { warned = append(warned, m) }, Head: true})
	// Reads are numbered from 1; a reopen costs one read (the saved entry, skipped). Read 5
	// (line 4) fails to move; read 9 (line 6) fails in its fields once, and read 11 gets it
	// after the reopen; reads 14 and 16 both fail at line 9: it is skipped and counted.
	faulty(t, src, map[int]bool{5: true}, map[int]bool{9: true, 14: true, 16: true})
	got := journaltest.ReadN(t, src, 19, 20*time.Second)
	journaltest.ExpectQuiet(t, src, 100*time.Millisecond)
	for i, o := range got {
		want := i
		if i >= 9 {
			want = i + 1
		}
		if journaltest.SeqOf(t, o.Message) != want {
			t.Fatalf("entry %d is %q, want line %d", i, o.Message, want)
		}
	}
	if st := src.Stats(); st.Reopens != 3 || st.Unreadable != 1 || st.Duplicates != 0 || st.CursorMissing != 0 {
		t.Fatalf("stats %+v; warnings %q", st, warned)
	}
}

// TestSDJournalZeroWaitSeesRotation: a caller that only ever calls Next(e, 0) still follows
// the journal across rotations (inotify events are processed by a zero-timeout wait).
func TestSDJournalZeroWaitSeesRotation(t *testing.T) {
	j := journaltest.StartJournald(t)
	src := openJ(t, Name, backend.Options{Dir: j.Dir(), Units: []string{"a.service"}})
	var e ingest.Entry
	got := 0
	deadline := time.Now().Add(20 * time.Second)
	for i := range 6 {
		j.Write("a.service", "a", journaltest.Numbered("a", i))
		j.Rotate()
		for got <= i {
			if time.Now().After(deadline) {
				t.Fatalf("line %d never arrived with zero waits; stats %+v", i, src.Stats())
			}
			ok, err := src.Next(&e, 0)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				if journaltest.SeqOf(t, string(e.Message)) != got {
					t.Fatalf("got %q, want line %d", e.Message, got)
				}
				got++
			} else {
				time.Sleep(time.Millisecond) // the test plays a caller that polls
			}
		}
	}
}

// journalRSS is the resident memory of journal files mapped into this process (smaps).
func journalRSS(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	journal := false
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 6 && strings.Contains(f[0], "-"):
			journal = strings.HasSuffix(f[5], ".journal") || strings.HasSuffix(f[5], ".journal~")
		case journal && len(f) == 3 && f[0] == "Rss:":
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			total += kb << 10
		}
	}
	return total
}

// TestSDJournalRecycleReleasesPages: what the page trimmer of the cgo binding did, the recycle
// now guarantees. libsystemd keeps the journal pages it read mapped, and in the RSS, for as long
// as the handle lives; following, the handle is replaced every recycleFollow entries, and the
// journal pages resident after that are a fraction of those before it. Every entry still
// arrives once and in order.
func TestSDJournalRecycleReleasesPages(t *testing.T) {
	dir := t.TempDir()
	n := recycleFollow + 2*batchFollow
	pad := bytes.Repeat([]byte("p"), 450) // below journal-remote's 512-byte compression threshold
	testjournal.BuildFileFunc(t, dir, n, func(i int, e *testjournal.Entry) {
		journaltest.Lines(i, i+1, "a.service")(0, e)
		e.Message = append(append([]byte{}, pad...), e.Message...)
	})
	src := openJ(t, Name, backend.Options{Dir: dir, Units: []string{"a.service"}, Head: true})
	got := journaltest.ReadN(t, src, recycleFollow, time.Minute)
	before := journalRSS(t)
	got = append(got, journaltest.ReadN(t, src, 1, time.Minute)...) // the recycle, then a batch
	after := journalRSS(t)
	got = append(got, journaltest.ReadN(t, src, n-recycleFollow-1, time.Minute)...)
	journaltest.CheckSequence(t, got, n)
	t.Logf("journal files resident: %d KiB before the recycle, %d KiB after", before>>10, after>>10)
	if st := src.Stats(); st.Recycles != 1 || st.Duplicates != 0 || st.CursorMissing != 0 {
		t.Fatalf("stats %+v, want 1 recycle and every entry once", st)
	}
	// After: the files' headers, the seek to the cursor (a bisection, each page fault mapping
	// up to 64 KiB around it) and one batch.
	if before < 4<<20 || after > before/2 {
		t.Fatalf("%d KiB of journal files resident after the recycle, %d KiB before", after>>10, before>>10)
	}
}
