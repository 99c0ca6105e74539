package native

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// FuzzNativeJournal: a real journal file (journal-remote's) with bytes overwritten anywhere in
// its header or its objects never crashes or hangs the native backend, and it never returns
// an entry libsystemd does not (the differential harness's oracle, diff_test.go): every entry
// it returns, fields and stamps, is one the sdjournal backend returns for the same file (or,
// where that backend gives up, journalctl; where neither reads the file whole, one of the
// intact file's), read entry by entry and through a unit's entry list. at picks the place, by
// its remainder modulo 3: the header, the objects (past the hash tables), or the data hash
// table.
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
	requireSD(f)
	ref := newRefReader()
	f.Cleanup(ref.Close)
	ref.limit = 2 * time.Second // see refReader.limit
	intact := map[bool][]journaltest.Owned{}
	for _, unit := range []bool{false, true} {
		intact[unit] = ref.read(fuzzCase(work, unit)).Entries
		if len(intact[unit]) == 0 {
			f.Fatal("libsystemd reads nothing of the intact file")
		}
	}
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
		for _, unit := range []bool{false, true} {
			c := fuzzCase(work, unit)
			src, err := Open(backend.Options{Dir: work, Units: c.Units, NoFollow: true, Head: true})
			if err != nil {
				continue // a clear error is fine
			}
			var got []journaltest.Owned
			var e ingest.Entry
			for {
				ok, err := src.Next(&e, 0)
				if errors.Is(err, io.EOF) || err != nil || !ok {
					break
				}
				if len(got) >= 40 {
					t.Fatalf("more entries than the file holds")
				}
				got = append(got, journaltest.Own(&e))
			}
			src.Close()
			if len(got) > 0 {
				checkOracle(t, ref, c, got, intact[unit])
			}
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

// fuzzCase is the fuzzed directory, read whole or through a unit's match; the sdjournal
// backend is not waited for when it recovers from an error: journalctl is asked instead.
func fuzzCase(dir string, unit bool) diffCase {
	c := diffCase{dir: dir, recoverFor: time.Nanosecond}
	if unit {
		c.Units = []string{"a.service"}
	}
	return c
}

// checkOracle fails unless every entry the native reader returned is one libsystemd returns.
func checkOracle(t *testing.T, ref *refReader, c diffCase, got, intact []journaltest.Owned) {
	t.Helper()
	sd := ref.read(c)
	if errors.Is(sd.err, errRefCrashed) {
		return // libsystemd aborted: no reference
	}
	allowed, asked := sd.Entries, false
	if len(sd.Entries) == 0 && claimsMore(c.dir) {
		// libsystemd skips a file shorter than its header says whole; the native reader reads
		// what it holds (docs/journal.md), which must be the intact file's entries. Their
		// cursors carry the header's sequence-number id, which the same damage may have
		// changed (a patch across seqnum_id and header_size): that part of the cursor is the
		// file's, not the entry's, so it is left out of the comparison.
		for _, e := range intact {
			e.Cursor = withoutSeqnumID(e.Cursor)
			allowed = append(allowed, e)
		}
		for i := range got {
			got[i].Cursor = withoutSeqnumID(got[i].Cursor)
		}
	}
	ask := func() { // journalctl: every cursor, and where the sdjournal backend gives up
		jc := journalctlRead(c)
		allowed, asked = append(allowed, jc.Entries...), true
		if jc.err != nil && sd.err != nil {
			allowed = append(allowed, intact...) // read in part by both
		}
	}
	if sd.err != nil {
		ask()
	}
	for _, e := range got {
		if !oneOf(e, allowed) && !asked {
			ask()
		}
		if !oneOf(e, allowed) {
			t.Fatalf("native returned %s, which libsystemd does not (it returned %d entries: %v)", short(e), len(sd.Entries), sd.err)
		}
	}
}

func oneOf(e journaltest.Owned, set []journaltest.Owned) bool {
	for _, a := range set {
		if sameEntry(e, a) {
			return true
		}
	}
	return false
}

// claimsMore says whether the journal file in dir is shorter than its header says.
func claimsMore(dir string) bool {
	for _, p := range backend.JournalFiles(dir) {
		b, err := os.ReadFile(p)
		if err != nil || len(b) < 104 {
			continue
		}
		h, a := binary.LittleEndian.Uint64(b[88:]), binary.LittleEndian.Uint64(b[96:])
		if a > ^uint64(0)-h || h+a > uint64(len(b)) {
			return true
		}
	}
	return false
}

// withoutSeqnumID drops the s= field (the file header's sequence-number id) from a cursor.
func withoutSeqnumID(c string) string {
	if i := strings.IndexByte(c, ';'); strings.HasPrefix(c, "s=") && i > 0 {
		return c[i+1:]
	}
	return c
}
