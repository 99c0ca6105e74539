//go:build linux

package backend_test

// TestCheckJournalFile: the header check names truncated and foreign files, and the scan
// reports each bad file once, after it is no longer young.
import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

func TestCheckJournalFile(t *testing.T) {
	dir := t.TempDir()
	good := testjournal.BuildFileFunc(t, dir, 10, journaltest.Lines(0, 10, "a.service"))
	st, _ := os.Stat(good)
	if err := backend.CheckJournalFile(good, st.Size()); err != nil {
		t.Fatalf("good file: %v", err)
	}
	if err := backend.CheckJournalFile(good, st.Size()-1); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("one byte short: %v", err)
	}
	if err := backend.CheckJournalFile(filepath.Join(dir, "missing.journal"), 0); err == nil {
		t.Fatal("missing file: no error")
	}
	c := backend.NewFileChecker(dir)
	if bad := c.Scan(time.Now()); len(bad) != 0 {
		t.Fatalf("scan of a good directory: %q", bad)
	}
	sub := filepath.Join(dir, "3d1219c7c4c5404aaa1f6d2a48adfda4")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "system.journal"), []byte("not a journal"), 0o644)
	// another namespace's directory: not part of dir's journal, unless that namespace is asked for
	ns := filepath.Join(dir, "3d1219c7c4c5404aaa1f6d2a48adfda4.ns1")
	os.Mkdir(ns, 0o755)
	os.WriteFile(filepath.Join(ns, "system.journal"), []byte("not a journal"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ignored"), 0o644)
	if bad := c.Scan(time.Now()); len(bad) != 0 {
		t.Fatalf("a file written just now is judged later, got %q", bad)
	}
	if bad := c.Scan(time.Now().Add(time.Minute)); len(bad) != 1 || !strings.Contains(bad[0], sub) {
		t.Fatalf("bad file in a machine-id subdirectory: %q", bad)
	}
	if bad := c.Scan(time.Now().Add(2 * time.Minute)); len(bad) != 0 {
		t.Fatalf("reported twice: %q", bad)
	}
	nc := backend.NewNamespaceChecker(dir, "ns1")
	if bad := nc.Scan(time.Now().Add(time.Minute)); len(bad) != 1 || !strings.Contains(bad[0], ns) {
		t.Fatalf("namespace ns1: %q", bad)
	}
	if got := backend.JournalFilesIn(dir, "*"); len(got) != 3 {
		t.Fatalf("every namespace: %q", got)
	}
}
