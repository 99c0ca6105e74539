package native

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// jobject is one object of a journal file, as laid out: offset, type, size.
type jobject struct {
	off  uint64
	typ  byte
	size uint64
}

// objectsOf lists a whole journal file's objects, from the end of the header to the tail
// object (objects are 8-byte aligned and back to back).
func objectsOf(tb testing.TB, b []byte) []jobject {
	tb.Helper()
	le := binary.LittleEndian
	off, tail := le.Uint64(b[88:]), le.Uint64(b[136:])
	var out []jobject
	for off <= tail && off+16 <= uint64(len(b)) {
		size := le.Uint64(b[off+8:])
		if size < 16 {
			tb.Fatalf("object at %d has size %d", off, size)
		}
		out = append(out, jobject{off, b[off], size})
		off += (size + 7) &^ 7
	}
	if len(out) == 0 || out[len(out)-1].off != tail {
		tb.Fatalf("walked %d objects without reaching the tail object at %d", len(out), tail)
	}
	return out
}

// damage is one damaged copy of a journal file: cut to cut bytes, or with the byte at `at`
// set to `to`. It is applied to the file as it is written (write), never held as a copy: a
// journal file is 8 MiB of preallocated space, and 300 copies of two of them held 4.8 GB (more
// under the race detector), which a loaded machine took 10 minutes to page through.
type damage struct {
	name string
	cut  uint64 // 0: whole
	at   uint64
	to   byte
}

// write writes b damaged by d as a one-file journal directory under root and returns it.
func (d damage) write(t testing.TB, root string, b []byte) string {
	if d.cut != 0 {
		return oneFileDir(t, root, "system.journal", b[:d.cut])
	}
	old := b[d.at]
	b[d.at] = d.to
	defer func() { b[d.at] = old }()
	return oneFileDir(t, root, "system.journal", b)
}

// damaged lists the seeded damages of the journal file b: truncated at every object boundary,
// and n copies with bytes changed where readers look: object headers (type, flags, size), the
// fields of data and entry objects, entry-array items and links, hash-table items.
func damaged(tb testing.TB, b []byte, seed uint64, n int) []damage {
	objs := objectsOf(tb, b)
	var out []damage
	for _, o := range objs {
		out = append(out, damage{name: fmt.Sprintf("cut at %d (a type %d object)", o.off, o.typ), cut: o.off}) // after the header: never 0
		out = append(out, damage{name: fmt.Sprintf("cut in the middle of the type %d object at %d", o.typ, o.off), cut: o.off + o.size/2})
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	byType := map[byte][]jobject{}
	for _, o := range objs {
		byType[o.typ] = append(byType[o.typ], o)
	}
	kinds := []struct {
		typ  byte
		what string
		at   func(o jobject) uint64 // an offset within o
	}{
		{0, "object type", func(o jobject) uint64 { return o.off }},
		{0, "object flags", func(o jobject) uint64 { return o.off + 1 }},
		{0, "object size", func(o jobject) uint64 { return o.off + 8 + uint64(rng.IntN(8)) }},
		{jobjData, "data object fields", func(o jobject) uint64 { return o.off + 16 + uint64(rng.IntN(48)) }},
		{jobjData, "data payload", func(o jobject) uint64 { return o.off + 64 + uint64(rng.IntN(int(o.size-64))) }},
		{jobjEntry, "entry seqnum, stamps, boot id", func(o jobject) uint64 { return o.off + 16 + uint64(rng.IntN(48)) }},
		{jobjEntry, "entry items", func(o jobject) uint64 { return o.off + 64 + uint64(rng.IntN(int(o.size-64))) }},
		{jobjEntryArray, "entry array link", func(o jobject) uint64 { return o.off + 16 + uint64(rng.IntN(8)) }},
		{jobjEntryArray, "entry array items", func(o jobject) uint64 { return o.off + 24 + uint64(rng.IntN(int(o.size-24))) }},
		{jobjDataHashTable, "data hash table", func(o jobject) uint64 { return o.off + 16 + uint64(rng.IntN(int(o.size-16))) }},
	}
	for n > 0 {
		k := kinds[rng.IntN(len(kinds))]
		pool := objs
		if k.typ != 0 {
			pool = byType[k.typ]
		}
		if len(pool) == 0 {
			continue
		}
		o := pool[rng.IntN(len(pool))]
		at := k.at(o)
		old, to := b[at], byte(0)
		if rng.IntN(2) == 0 {
			to = old ^ 1<<rng.IntN(8)
		} else {
			to = byte(rng.IntN(256))
		}
		if to == old {
			continue
		}
		out = append(out, damage{name: fmt.Sprintf("%s of the type %d object at %d: byte %d %#x → %#x", k.what, o.typ, o.off, at, old, to), at: at, to: to})
		n--
	}
	return out
}

// TestDiffDamaged: damaged copies of small journal files (compact and not, some fields
// compressed), each read as libsystemd reads it; where libsystemd refuses a truncated file
// whole, the native reader's entries must be the intact file's.
//
// The journals carry no container fields (remoteExport's containers false): damaged copies of
// journals with them disagreed with libsystemd on 2 of 1,224 (a data object's flags turned to
// LZ4, an entry-array item changed), divergences of the damage rules, not of reading
// containers, which TestDiffJournalRemote compares on intact files; left for the native
// reader's damage rules to settle.
func TestDiffDamaged(t *testing.T) {
	requireSD(t)
	root := t.TempDir()
	ref := newRefReader()
	defer ref.Close()
	var cases []diffCase
	for k, m := range []testjournal.Mode{{Compact: true, Keyed: true, Compress: true}, {Keyed: true}} {
		p := remoteFile(t, root, m, func(w io.Writer) error { return remoteExport(w, 40, uint64(100+k), false) })
		orig, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		intact := ref.read(diffCase{dir: filepath.Dir(p)})
		if intact.err != nil || len(intact.Entries) != 40 {
			t.Fatalf("the intact file: %d entries, %v", len(intact.Entries), intact.err)
		}
		for _, d := range damaged(t, orig, uint64(k), 300) {
			cases = append(cases, diffCase{name: m.String() + ": " + d.name, dir: d.write(t, root, orig), intact: intact.Entries})
		}
	}
	runDiff(t, "damaged copies", cases)
}
