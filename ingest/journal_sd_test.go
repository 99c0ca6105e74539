//go:build cgo && linux

package ingest

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testjournal"
)

// TestSDJournalFastPath: the one-call C read path is in use (go-systemd still keeps the
// handle in its field cjournal), and it, go-systemd's getters and the journalctl backend all
// read the testdata journal as the export reader reads its export text: binary and 5 KB
// messages, repeated fields, entries without a unit.
func TestSDJournalFastPath(t *testing.T) {
	data := fixture(t, "journal.export")
	want, _, _ := readAll(t, data, ReaderOptions{})
	dir := t.TempDir()
	testjournal.BuildFileFromExport(t, dir, bytes.NewReader(data))

	read := func(t *testing.T, b Backend, slow bool) []owned {
		src := openJ(t, JournalOptions{Dir: dir, Backend: b, Since: time.Unix(1, 0)})
		if sd, ok := src.(*sdSource); ok {
			if sd.raw == nil {
				t.Fatal("the C read path is off: go-systemd's Journal layout changed (see rawHandle)")
			}
			if slow {
				sd.noFast, sd.raw = true, nil
			}
		}
		var out []owned
		var e Entry
		for {
			ok, err := src.Next(&e, 300*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return out
			}
			o := own(&e)
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
		b    Backend
		slow bool
	}{{"fast", BackendSDJournal, false}, {"go-systemd", BackendSDJournal, true}, {"journalctl", BackendJournalctl, false}} {
		t.Run(c.name, func(t *testing.T) {
			got := read(t, c.b, c.slow)
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
// arrives whole (SetDataThreshold(0)), and the read buffer grows for it.
func TestSDJournalLargeMessage(t *testing.T) {
	j := startJournald(t)
	src := openJ(t, JournalOptions{Dir: j.Dir(), Backend: BackendSDJournal, Identifiers: []string{"big"}})
	big := bytes.Repeat([]byte("0123456789abcdef"), 300<<10/16) // 300 KiB
	j.Write("", "big", big)
	j.Write("", "big", []byte("small after"))
	got := readN(t, src, 2, 10*time.Second)
	if got[0].Message != string(big) || got[1].Message != "small after" {
		t.Fatalf("message of %d bytes, want %d; then %q", len(got[0].Message), len(big), got[1].Message)
	}
}

// TestSDJournalOtherThread: using a source from another goroutine (so another thread) is
// caught rather than silently breaking libsystemd's one-thread rule.
func TestSDJournalOtherThread(t *testing.T) {
	j := startJournald(t)
	src := openJ(t, JournalOptions{Dir: j.Dir(), Backend: BackendSDJournal, Identifiers: []string{"x"}})
	done := make(chan error)
	go func() {
		var e Entry
		_, err := src.Next(&e, 50*time.Millisecond)
		done <- err
	}()
	if err := <-done; err == nil {
		t.Fatal("Next from another goroutine: no error")
	}
}

// TestSDJournalLocalOpens: the local system journal opens (empty here, without a system
// journald) and follows without error.
func TestSDJournalLocalOpens(t *testing.T) {
	if _, err := os.Stat("/etc/machine-id"); err != nil {
		t.Skip("no machine id")
	}
	src := openJ(t, JournalOptions{Backend: BackendSDJournal, Units: []string{"specwatch-test-none.service"}})
	expectQuiet(t, src, 50*time.Millisecond)
}

// forceGoSystemdGetters switches an sdjournal source to go-systemd's getters, the baseline
// of the C read path in BenchmarkJournalRead1M.
func forceGoSystemdGetters(src JournalSource) {
	if s, ok := src.(*sdSource); ok {
		s.noFast, s.raw = true, nil
	}
}
