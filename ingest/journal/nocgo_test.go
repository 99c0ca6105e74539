//go:build !cgo || !linux

package journal

import (
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
)

// TestJournalAutoWithoutCgo: a build without cgo follows the journal with the native backend,
// and asking for sdjournal says why not.
func TestJournalAutoWithoutCgo(t *testing.T) {
	if _, err := Open(Options{Backend: SDJournal}); err == nil {
		t.Fatal("SDJournal without cgo: no error")
	}
	j := journaltest.StartJournald(t)
	src := openJ(t, Options{Dir: j.Dir(), Identifiers: []string{"x"}})
	if b := src.Stats().Backend; b != Native.String() {
		t.Fatalf("Auto chose %v", b)
	}
	j.Write("", "x", []byte("hello"))
	if got := journaltest.ReadN(t, src, 1, 10*time.Second); got[0].Message != "hello" {
		t.Fatalf("got %v", got)
	}
}
