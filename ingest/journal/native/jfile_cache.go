//go:build linux

package native

// blockCache keeps recently read blocks of a source's journal files, so that the objects
// entries share (a unit's, a host's fields; a repeated message, stored once) cost a map lookup
// instead of a read. Bounded: slots × jblockSize bytes for all files together, evicted by the
// clock algorithm. A block's key is its file's id (never reused) and its number in the file.
//
// A block read while journald was still writing near it may hold zeros where objects appeared
// later. Each block remembers the file's safe offset when read (jfile.safe): an object at or
// below it was complete then; one above it is read afresh.
type blockCache struct {
	size  uint64         // block size
	idx   map[uint64]int // key → slot
	slots []cblock
	hand  int
	files uint64 // ids handed out
}

type cblock struct {
	key  uint64
	num  uint64 // in its file
	data []byte // up to jblockSize; shorter at the end of the file
	safe uint64
	ref  bool
	used bool
}

// jblockSize is the unit of reading: a following daemon reads the few kilobytes journald
// appended since the last poll. Each block also holds the jblockOverlap bytes after it, so an
// object that starts in it and crosses into the next is still served from the cache: a shared
// field (a cgroup, a command line) that happened to cross a boundary was otherwise read from
// the file again for every entry (one system call per entry in `analyze`).
const (
	jblockSize    = 16 << 10
	jblockOverlap = 4 << 10
)

func newBlockCache(slots int, size uint64) *blockCache {
	return &blockCache{size: size, idx: make(map[uint64]int, slots), slots: make([]cblock, slots)}
}

// jblockKeyBits leaves block numbers 40 bits: files up to 16 PiB.
const jblockKeyBits = 40

// get returns the n bytes at off when they lie within one block, reading the block if it is
// missing or stale; nil when they straddle blocks or the file ends before them.
func (c *blockCache) get(j *jfile, off, n uint64) []byte {
	num, in := off/c.size, off%c.size
	if in+n > c.size+jblockOverlap || num >= 1<<jblockKeyBits {
		return nil
	}
	key := j.id<<jblockKeyBits | num
	if s, ok := c.idx[key]; ok {
		b := &c.slots[s]
		if off <= b.safe && in+n <= uint64(len(b.data)) {
			b.ref = true
			return b.data[in : in+n]
		}
		if !c.load(j, b) || in+n > uint64(len(b.data)) {
			return nil
		}
		return b.data[in : in+n]
	}
	s := c.victim()
	b := &c.slots[s]
	if b.used {
		delete(c.idx, b.key)
	}
	*b = cblock{key: key, num: num, data: b.data}
	if !c.load(j, b) {
		return nil
	}
	b.used = true
	c.idx[key] = s
	if in+n > uint64(len(b.data)) {
		return nil
	}
	return b.data[in : in+n]
}

// load (re)reads block b; false on a read error (the caller reads directly and reports it).
func (c *blockCache) load(j *jfile, b *cblock) bool {
	if cap(b.data) < int(c.size+jblockOverlap) {
		b.data = make([]byte, c.size+jblockOverlap)
	}
	b.data = b.data[:c.size+jblockOverlap]
	got, err := j.pread(b.data, int64(b.num*c.size))
	if err != nil || got < 0 {
		b.data = b.data[:0]
		return false
	}
	b.data, b.safe, b.ref = b.data[:got], j.safe, true
	return true
}

// victim picks a slot: a free one, else the first not referenced since the hand last passed.
func (c *blockCache) victim() int {
	for {
		b := &c.slots[c.hand]
		s := c.hand
		c.hand = (c.hand + 1) % len(c.slots)
		if !b.used || !b.ref {
			return s
		}
		b.ref = false
	}
}
