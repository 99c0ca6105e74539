//go:build !cgo || !linux

package journal_test

import (
	"testing"
	"time"
)

func forceGoSystemdGetters(JournalSource) {}

// TestJournalAutoWithoutCgo: a build without cgo follows the journal with the native backend,
// and asking for sdjournal says why not.
func TestJournalAutoWithoutCgo(t *testing.T) {
	if _, err := OpenJournal(JournalOptions{Backend: BackendSDJournal}); err == nil {
		t.Fatal("BackendSDJournal without cgo: no error")
	}
	j := startJournald(t)
	src := openJ(t, JournalOptions{Dir: j.Dir(), Identifiers: []string{"x"}})
	if b := src.Stats().Backend; b != BackendNative {
		t.Fatalf("BackendAuto chose %v", b)
	}
	j.Write("", "x", []byte("hello"))
	if got := readN(t, src, 1, 10*time.Second); got[0].Message != "hello" {
		t.Fatalf("got %v", got)
	}
}
