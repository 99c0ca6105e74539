package native

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/internal/testjournal"
)

// FuzzNativeJournal: a real journal file (journal-remote's) with bytes overwritten anywhere in
// its header or its objects never crashes or hangs the native backend: every entry it returns
// is one of the file's, and damage ends in counted skips or a clear error, read entry by entry
// and through a unit's entry list. at picks the place, by its remainder modulo 3: the header,
// the objects (past the hash tables), or the data hash table.
func FuzzNativeJournal(f *testing.F) {
	dir := f.TempDir()
	base := testjournal.BuildFileFunc(f, dir, 40, func(i int, e *testjournal.Entry) {
		journaltest.Lines(0, 40, "a.service")(i, e)
		if i%7 == 3 {
			e.Unit = ""
		}
	})
	orig, err := os.ReadFile(base)
	if err != nil {
		f.Fatal(err)
	}
	objStart, end := objectsRegion(f, orig)
	htStart := binary.LittleEndian.Uint64(orig[104:]) // the data hash table's items
	htEnd := htStart + binary.LittleEndian.Uint64(orig[112:])
	work := filepath.Join(f.TempDir(), "w")
	os.Mkdir(work, 0o755)
	path := filepath.Join(work, "system.journal")
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		f.Fatal(err)
	}
	old := time.Now().Add(-time.Hour) // the file checker judges only files not being written
	if err := os.Chtimes(path, old, old); err != nil {
		f.Fatal(err)
	}
	f.Add(uint32(3*152), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}) // n_entries
	f.Add(uint32(3*176), []byte{1, 0, 0, 0})                                     // entry_array_offset
	f.Add(uint32(1), []byte{3})
	f.Add(uint32(3*667+1), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Add(uint32(2), []byte{8, 0, 0, 0, 0, 0, 0, 0}) // a bucket pointing into the header
	f.Fuzz(func(t *testing.T, at uint32, patchBytes []byte) {
		if len(patchBytes) == 0 || len(patchBytes) > 64 {
			return
		}
		var off int64
		switch at % 3 {
		case 0:
			off = int64(at/3) % 264
		case 1:
			off = int64(objStart) + int64(at/3)%int64(end-objStart)
		default:
			off = int64(htStart) + int64(at/3)%int64(htEnd-htStart)
		}
		n := min(int64(len(patchBytes)), int64(len(orig))-off)
		fh, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			fh.WriteAt(orig[off:off+n], off) // restore for the next input
			fh.Close()
		}()
		fh.WriteAt(patchBytes[:n], off)
		// every entry, and one unit through its data object's entry list
		for _, units := range [][]string{nil, {"a.service"}} {
			src, err := Open(backend.Options{Dir: work, Units: units, NoFollow: true, Head: true})
			if err != nil {
				continue // a clear error is fine
			}
			var e ingest.Entry
			for got := 0; ; got++ {
				ok, err := src.Next(&e, 0)
				if errors.Is(err, io.EOF) || err != nil || !ok {
					break
				}
				if got >= 40 {
					t.Fatalf("more entries than the file holds")
				}
			}
			src.Close()
		}
	})
}

// objectsRegion is where a journal-remote file's objects lie: after its two hash tables, up
// to the end of its last object.
func objectsRegion(tb testing.TB, b []byte) (start, end uint64) {
	le := binary.LittleEndian
	dataHT, dataSize := le.Uint64(b[104:]), le.Uint64(b[112:])
	fieldHT, fieldSize := le.Uint64(b[120:]), le.Uint64(b[128:])
	tail := le.Uint64(b[136:])
	start = max(dataHT+dataSize, fieldHT+fieldSize)
	end = tail + le.Uint64(b[tail+8:])
	if start >= end || end > uint64(len(b)) {
		tb.Fatalf("unexpected layout: objects %d..%d of %d bytes", start, end, len(b))
	}
	return start, end
}
