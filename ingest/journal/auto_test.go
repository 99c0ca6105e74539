package journal

import (
	"encoding/binary"
	"testing"

	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// The journal file's incompatible flags (systemd.io/JOURNAL_FILE_FORMAT), as package native
// names them: jflagLZ4, jflagKeyed, jflagCompact; 32 is none yet (systemd 252 knows 1 to 16).
const (
	flagLZ4     = 2
	flagKeyed   = 4
	flagCompact = 16
	flagFuture  = 32
)

// TestJournalAutoChoice: auto reads with the native backend, which decodes every compression
// (zstd, LZ4, XZ), unless a file there has an incompatible flag it does not know; then with
// libsystemd (or journalctl without cgo).
func TestJournalAutoChoice(t *testing.T) {
	dir := t.TempDir()
	testjournal.BuildFileFunc(t, dir, 10, journaltest.Lines(0, 10, "a.service"))
	src := openJ(t, Options{Dir: dir, Units: []string{"a.service"}, Start: Head(), NoFollow: true})
	if b := src.Stats().Backend; b != Native.String() {
		t.Fatalf("auto chose %v for zstd files", b)
	}
	lz4 := testjournal.BuildFileFunc(t, dir, 10, journaltest.Lines(10, 20, "a.service"))
	var fl [4]byte
	binary.LittleEndian.PutUint32(fl[:], flagLZ4|flagKeyed|flagCompact)
	journaltest.Patch(t, lz4, 12, fl[:])
	src = openJ(t, Options{Dir: dir, Units: []string{"a.service"}, Start: Head(), NoFollow: true})
	if b := src.Stats().Backend; b != Native.String() {
		t.Fatalf("auto chose %v with an LZ4 file, want native", b)
	}
	binary.LittleEndian.PutUint32(fl[:], flagFuture|flagKeyed|flagCompact)
	journaltest.Patch(t, lz4, 12, fl[:])
	src = openJ(t, Options{Dir: dir, Units: []string{"a.service"}, Start: Head(), NoFollow: true})
	want := SDJournal
	if SDJournalAvailable() != nil {
		want = Journalctl
	}
	if b := src.Stats().Backend; b != want.String() {
		t.Fatalf("auto chose %v with a file of a future format, want %v", b, want)
	}
}
