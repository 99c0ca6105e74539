package journal_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testjournal"
)

// journalBackends are the backends every journal test runs with: journalctl and native always,
// sdjournal when this build has it (cgo). Each runs as a subtest named after it.
func journalBackends(t *testing.T, f func(t *testing.T, b Backend)) {
	t.Helper()
	for _, b := range []Backend{BackendSDJournal, BackendJournalctl, BackendNative} {
		t.Run(b.String(), func(t *testing.T) {
			if b == BackendSDJournal {
				if err := SDJournalAvailable(); err != nil {
					t.Skipf("sdjournal backend not in this build: %v", err)
				}
			}
			f(t, b)
		})
	}
}

// openJ opens a source and closes it at the end of the test; warnings go to the test log.
func openJ(t *testing.T, o JournalOptions) JournalSource {
	t.Helper()
	if o.Warn == nil {
		o.Warn = func(m string) { t.Logf("warn: %s", m) }
	}
	src, err := OpenJournal(o)
	if err != nil {
		t.Fatalf("OpenJournal: %v", err)
	}
	t.Cleanup(func() {
		if err := src.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return src
}

// readN reads exactly n entries, failing if they do not arrive before timeout (a deadline on
// an external process, journald, never a fixed sleep).
func readN(t *testing.T, src JournalSource, n int, timeout time.Duration) []owned {
	t.Helper()
	out := make([]owned, 0, n)
	deadline := time.Now().Add(timeout)
	var e Entry
	for len(out) < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d entries within %v; stats %+v", len(out), n, timeout, src.Stats())
		}
		ok, err := src.Next(&e, 200*time.Millisecond)
		if err != nil {
			t.Fatalf("Next after %d entries: %v", len(out), err)
		}
		if ok {
			out = append(out, own(&e))
		}
	}
	return out
}

// expectQuiet checks that no further entry arrives within d.
func expectQuiet(t *testing.T, src JournalSource, d time.Duration) {
	t.Helper()
	var e Entry
	ok, err := src.Next(&e, d)
	if err != nil || ok {
		t.Fatalf("expected no more entries, got ok=%v err=%v entry %v", ok, err, own(&e))
	}
}

// numbered is the message of line i of a test stream; seqOf reads i back.
func numbered(prefix string, i int) []byte { return fmt.Appendf(nil, "%s %08d", prefix, i) }

func seqOf(t *testing.T, msg string) int {
	t.Helper()
	i := strings.LastIndexByte(msg, ' ')
	n, err := strconv.Atoi(msg[i+1:])
	if err != nil {
		t.Fatalf("not a numbered message: %q", msg)
	}
	return n
}

// checkSequence fails unless msgs are exactly prefix 0 … n-1, in order.
func checkSequence(t *testing.T, got []owned, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("got %d entries, want %d", len(got), n)
	}
	for i, o := range got {
		if s := seqOf(t, o.Message); s != i {
			t.Fatalf("entry %d is line %d (previous %v): lost or duplicated lines", i, s, got[max(i-1, 0)])
		}
	}
}

func hostname(t *testing.T) string {
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// startJournald starts a private journald whose entries can carry units, or skips saying
// why (testjournal does).
func startJournald(t *testing.T, conf ...string) *testjournal.Journal {
	t.Helper()
	j := testjournal.StartWith(t, testjournal.Options{Conf: conf})
	j.RequireUnits()
	return j
}
