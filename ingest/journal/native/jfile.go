//go:build linux

package native

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"github.com/specwatch/specwatch/ingest/journal/backend"
)

// jfile reads one journal file with pread, for the native backend (journal_native.go). The
// layout is systemd's documented one (systemd.io/JOURNAL_FILE_FORMAT). Why not mmap as
// libsystemd does: every page a mapping touches stays in the reader's RSS, and dropping them
// costs a page fault each to map them back (40 µs on this project's benchmark VM); reading
// into a small cache of our own costs neither.
//
// Concurrency with journald, which appends while we read: journald writes an entry's data
// objects, then the entry, then links it into the entry arrays and only then increments the
// header's n_entries. So every entry below a header snapshot's n_entries is complete, and so
// is every object at an offset at or below such an entry's (objects are appended in order by
// one thread). Cached blocks remember how far that held when they were read (blockCache).
// ingest.Entry-array items are filled in place later, so they are always read afresh.
type jfile struct {
	path    string
	f       *os.File
	fd      int
	ino     uint64
	flags   uint32 // incompatible_flags
	seqID   [16]byte
	n       uint64 // entries in the list read (the file's, or the match's) at the last snapshot
	first   uint64 // that list's first entry array
	chain   []jarray
	next    uint64 // index of the next list item to look at
	from    uint64 // index after the last entry moved past: a scan starts only below n
	ended   bool   // the scan found no more entries when n was endedN
	endedN  uint64
	lastOff uint64 // offset of the last entry moved past: the next must be above it
	bad     int    // entries (or arrays) skipped as damaged, and the last reason
	badErr  error
	badSeen int // bad, as last reported
	// the order of the list's items (jfile_order.go): checked up to sortedTo, the last one
	// sortedLast; unsorted once one is not above the one before
	sortedTo, sortedLast uint64
	unsorted             bool
	repositioned         bool     // the next index after lastOff is found
	strict               bool     // a match's list: the next item must be readable (peek)
	hsize                uint64   // header_size: objects lie after it
	size                 uint64   // the file's size at the last fstat
	queue                []uint64 // offsets of entries next … next+len-1, read ahead from the array
	qpos                 int
	safe                 uint64      // highest entry offset known linked: objects at or below it are complete
	cache                *blockCache // shared by the source's files
	id                   uint64      // this file's key in the cache, unique for the cache's life
	head                 jentry      // the next entry's header, when peeked
	peeked               bool
	tailBoot             [16]byte // tail_entry_boot_id and tail_entry_monotonic at the last snapshot
	tailMono             uint64
	retired              bool   // journald no longer writes it
	final                bool   // retired, and the header was read after that: n is final
	broken               bool   // its entry arrays are damaged: no more reading
	wd                   int32  // inotify watch, -1 none
	raw                  bool   // pread without entering the scheduler (see pread)
	buf                  []byte // scratch for objects read around the cache
	zout                 []byte // decompressed payloads
	zcount               int    // payloads decompressed, for tests
	// the one match read through its data object's entry list (jfile_match.go); nil: every entry
	match     []byte
	matchData uint64 // the match's data object, 0 until found
	matchHead uint64 // its first entry
	total     uint64 // the header's n_entries at the last snapshot
	lookedUp  uint64 // total when the match was last looked up
	fileID    [16]byte
	htOff     uint64 // data hash table items, and their size in bytes
	htSize    uint64
}

// jarray is one entry-array object of the chain: its offset, the index of its first item and
// how many items it holds.
type jarray struct{ off, base, cap, next uint64 }

// jentry is an entry object's fixed part: what orders entries and makes their cursor.
type jentry struct {
	off              uint64
	seqnum, realtime uint64
	monotonic, xor   uint64
	boot             [16]byte
}

// Header and object layout (incompatible flags, offsets into the header and objects).
const (
	jflagXZ      = 1
	jflagLZ4     = 2
	jflagKeyed   = 4
	jflagZstd    = 8
	jflagCompact = 16
	jflagsKnown  = jflagXZ | jflagLZ4 | jflagKeyed | jflagZstd | jflagCompact
	jflagSealed  = 1 // compatible

	jobjData           = 1
	jobjField          = 2
	jobjEntry          = 3
	jobjDataHashTable  = 4
	jobjFieldHashTable = 5
	jobjEntryArray     = 6
	jobjTag            = 7
	jobjHeader         = 16 // type, flags, reserved, size

	jobjCompressedXZ   = 1
	jobjCompressedLZ4  = 2
	jobjCompressedZstd = 4

	jheaderRead = 208 // through tail_entry_monotonic: what a snapshot needs
)

var (
	errJournalUnsupported = errors.New("unsupported journal file feature")
	// errBadFile: the file must not be read on (its entry arrays are out of order).
	errBadFile = errors.New("damaged journal file")
	// errRefused: the header fails libsystemd's checks, which then skips the whole file.
	errRefused = errors.New("refused")
	// errCutHeader: refused, the file being shorter than a header claiming an impossible size.
	errCutHeader = errors.New("refused")
)

// openJFile opens path and reads its header. A file with incompatible flags this reader does
// not know is refused with errJournalUnsupported; a header libsystemd would refuse
// (journal_file_verify_header) with errRefused. One check is left out: a file shorter than
// its header says (truncated by a full disk or a crash while copying), which libsystemd skips
// whole, is read up to where it ends (docs/journal.md).
func openJFile(path string, cache *blockCache, raw bool) (*jfile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("journal file %s: %w", path, err)
	}
	j := &jfile{path: path, f: f, fd: int(f.Fd()), ino: st.Ino, cache: cache, wd: -1, raw: raw}
	cache.files++
	j.id = cache.files
	var h [jheaderRead]byte
	if got, err := j.pread(h[:], 0); err != nil || got < len(h) {
		f.Close()
		return nil, fmt.Errorf("journal file %s: reading the header: %w", path, orShort(err))
	}
	if string(h[:8]) != backend.JournalSignature {
		f.Close()
		return nil, fmt.Errorf("journal file %s is not a journal file (bad signature)", path)
	}
	j.flags = binary.LittleEndian.Uint32(h[12:])
	if j.flags&^jflagsKnown != 0 {
		f.Close()
		return nil, fmt.Errorf("journal file %s: incompatible flags %#x: %w", path, j.flags, errJournalUnsupported)
	}
	copy(j.seqID[:], h[72:88])
	copy(j.fileID[:], h[24:40])
	j.size = uint64(st.Size)
	if err := j.verifyHeader(h[:]); err != nil {
		f.Close()
		return nil, err
	}
	j.snap(h[:])
	return j, nil
}

// verifyHeader applies libsystemd's checks of a header (but for the file's size).
func (j *jfile) verifyHeader(h []byte) error {
	le := binary.LittleEndian
	j.hsize = le.Uint64(h[88:])
	arena := le.Uint64(h[96:])
	why := ""
	switch {
	case h[16] >= 3:
		why = fmt.Sprintf("state %d", h[16])
	case j.hsize < jheaderRead:
		why = fmt.Sprintf("header size %d", j.hsize)
	case le.Uint32(h[8:])&jflagSealed != 0 && j.hsize < 240:
		why = "sealed, with a short header"
	case arena > ^uint64(0)-j.hsize || le.Uint64(h[136:]) > j.hsize+arena:
		why = "tail object past the arena"
	case (le.Uint64(h[104:])|le.Uint64(h[120:])|le.Uint64(h[136:])|le.Uint64(h[176:]))%8 != 0:
		why = "misaligned offsets"
	}
	if why == "" && j.hsize+arena > j.size && !j.cut(j.hsize+arena, le.Uint64(h[136:])) {
		// the file checker reports it (backend.CheckJournalFile)
		return fmt.Errorf("journal file %s: header %w (it says %d bytes, the file has %d)", j.path, errCutHeader, j.hsize+arena, j.size)
	}
	if why != "" {
		return fmt.Errorf("journal file %s: header %w (%s)", j.path, errRefused, why)
	}
	return nil
}

// cut says whether a file shorter than its header says lost its end (a full disk, a crash
// while copying): its head is then read (libsystemd skips the whole file), every object
// checked to lie inside the file. A header that claims a size journald never writes (over
// 4 GiB in compact mode, over 1 TiB otherwise, its tail object past the arena) is damaged
// instead, and refused as libsystemd refuses it.
func (j *jfile) cut(claimed, tail uint64) bool {
	return claimed <= 1<<40 && (!j.compact() || claimed <= 1<<32) && tail < claimed
}

// close releases the file.
func (j *jfile) close() { j.f.Close() }

// refresh takes a new header snapshot: how many entries are linked now.
func (j *jfile) refresh() error {
	var h [jheaderRead]byte
	if n, err := j.pread(h[:], 0); err != nil || n < len(h) {
		return fmt.Errorf("journal file %s: reading the header: %w", j.path, orShort(err))
	}
	j.snap(h[:])
	if j.match != nil {
		return j.snapMatch()
	}
	return nil
}

func (j *jfile) snap(h []byte) {
	// journald writes the header, then creates the hash tables: a file opened in between has
	// none yet
	j.htOff, j.htSize = binary.LittleEndian.Uint64(h[104:]), binary.LittleEndian.Uint64(h[112:])
	j.total = binary.LittleEndian.Uint64(h[152:])
	copy(j.tailBoot[:], h[56:72])
	j.tailMono = binary.LittleEndian.Uint64(h[200:])
	if j.match == nil { // else snapMatch sets the list
		j.n, j.first = j.total, binary.LittleEndian.Uint64(h[176:])
	}
}

// compact says whether offsets in entries and arrays are 32-bit (systemd ≥ 252's default).
func (j *jfile) compact() bool { return j.flags&jflagCompact != 0 }

// itemSize is the size of an entry-array item, and entryItem of an entry's item.
func (j *jfile) itemSize() uint64 {
	if j.compact() {
		return 4
	}
	return 8
}

func (j *jfile) entryItem() int {
	if j.compact() {
		return 4
	}
	return 16
}

// pending reports whether the snapshot holds entries not read yet.
func (j *jfile) pending() bool { return j.from < j.n && !(j.ended && j.endedN == j.n) }

// pread reads at off. Following, it is a raw system call: a normal one tells the scheduler it
// may block, and the scheduler's monitor thread then stays awake polling for 20 µs-10 ms
// (a quarter of the daemon's CPU in a live run, perf). What a follow reads journald has just
// written, so it is in the page cache; a cold read (catching up after a restart) holds this
// goroutine's P for the disk's latency.
func (j *jfile) pread(b []byte, off int64) (int, error) {
	if !j.raw {
		return syscall.Pread(j.fd, b, off)
	}
	if len(b) == 0 {
		return 0, nil
	}
	n, _, e := syscall.RawSyscall6(syscall.SYS_PREAD64, uintptr(j.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(off), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func orShort(err error) error {
	if err == nil {
		return errors.New("short read")
	}
	return err
}
