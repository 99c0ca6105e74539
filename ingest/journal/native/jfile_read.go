//go:build linux

package native

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/specwatch/specwatch/ingest/journal/backend"
)

// jfileMaxObject bounds one object's size: journald's own limit on an entry is 768 MiB of
// fields, but a field this reader hands on is a log line; anything larger is damage.
const jfileMaxObject = 64 << 20

// arrayFor returns the entry array holding entry index i, walking the chain from its last
// known element (arrays only ever get appended to the chain).
func (j *jfile) arrayFor(i uint64) (jarray, error) {
	if len(j.chain) == 0 {
		if j.first == 0 {
			return jarray{}, fmt.Errorf("journal file %s: %d entries but no entry array", j.path, j.n)
		}
		a, err := j.readArray(j.first, 0)
		if err != nil {
			return a, err
		}
		j.chain = append(j.chain, a)
	}
	for {
		last := j.chain[len(j.chain)-1]
		if i >= last.base+last.cap {
			var b [8]byte
			if n, err := j.pread(b[:], int64(last.off+jobjHeader)); err != nil || n < 8 {
				return last, fmt.Errorf("journal file %s: entry array at %d: %w", j.path, last.off, orShort(err))
			}
			next := binary.LittleEndian.Uint64(b[:])
			if next == 0 || next <= last.off {
				return last, fmt.Errorf("journal file %s: entry %d of %d is past the entry arrays", j.path, i, j.n)
			}
			a, err := j.readArray(next, last.base+last.cap)
			if err != nil {
				return a, err
			}
			j.chain = append(j.chain, a)
			continue
		}
		// the chain is short (arrays grow geometrically): search it from the end, where reading
		// usually is
		lo := len(j.chain) - 1
		for lo > 0 && i < j.chain[lo].base {
			lo--
		}
		return j.chain[lo], nil
	}
}

// readArray reads the fixed part of the entry array at off, whose first item is entry base.
func (j *jfile) readArray(off, base uint64) (jarray, error) {
	var b [jobjHeader]byte
	if n, err := j.pread(b[:], int64(off)); err != nil || n < len(b) {
		return jarray{}, fmt.Errorf("journal file %s: entry array at %d: %w", j.path, off, orShort(err))
	}
	size := binary.LittleEndian.Uint64(b[8:])
	if b[0] != jobjEntryArray || size < jobjHeader+8 || size > jfileMaxObject {
		return jarray{}, fmt.Errorf("journal file %s: object at %d is no entry array (type %d, size %d)", j.path, off, b[0], size)
	}
	return jarray{off: off, base: base, cap: (size - jobjHeader - 8) / j.itemSize()}, nil
}

// fill reads the offsets of the next entries (up to the snapshot's end) into the queue.
func (j *jfile) fill() error {
	j.queue, j.qpos = j.queue[:0], 0
	if j.match != nil && j.next == 0 {
		// a data object's list starts with its first entry, stored in the object itself
		j.queue = append(j.queue, j.matchHead)
		j.safe = max(j.safe, j.matchHead)
		return nil
	}
	skip := uint64(0) // list index of the chain's first item
	if j.match != nil {
		skip = 1
	}
	a, err := j.arrayFor(j.next - skip)
	if err != nil {
		return err
	}
	n := min(a.base+a.cap, j.n-skip) - (j.next - skip)
	n = min(n, 1024)
	is := j.itemSize()
	raw := j.scratch(int(n * is))
	at := a.off + jobjHeader + 8 + (j.next-skip-a.base)*is
	if got, err := j.pread(raw, int64(at)); err != nil || got < len(raw) {
		return fmt.Errorf("journal file %s: entry array at %d: %w", j.path, a.off, orShort(err))
	}
	for k := uint64(0); k < n; k++ {
		var off uint64
		if is == 4 {
			off = uint64(binary.LittleEndian.Uint32(raw[k*4:]))
		} else {
			off = binary.LittleEndian.Uint64(raw[k*8:])
		}
		if off == 0 {
			return fmt.Errorf("journal file %s: entry %d of %d is not linked", j.path, j.next+k, j.n)
		}
		j.queue = append(j.queue, off)
		// linked, so complete, and everything before it: one cache refresh per fill, not per entry
		j.safe = max(j.safe, off)
	}
	return nil
}

// peek reads the header of the next entry in the snapshot into j.head.
func (j *jfile) peek() error {
	if j.peeked {
		return nil
	}
	if j.qpos >= len(j.queue) {
		if err := j.fill(); err != nil {
			return err
		}
	}
	off := j.queue[j.qpos]
	j.safe = max(j.safe, off)
	o, err := j.object(off, jobjEntry)
	if err != nil {
		return fmt.Errorf("%w: %w", errBadEntry, err)
	}
	if len(o) < 64 {
		return fmt.Errorf("%w: journal file %s: entry at %d is too short (%d bytes)", errBadEntry, j.path, off, len(o))
	}
	h := &j.head
	h.off = off
	h.seqnum = binary.LittleEndian.Uint64(o[16:])
	h.realtime = binary.LittleEndian.Uint64(o[24:])
	h.monotonic = binary.LittleEndian.Uint64(o[32:])
	copy(h.boot[:], o[40:56])
	h.xor = binary.LittleEndian.Uint64(o[56:])
	j.peeked = true
	return nil
}

// advance moves past the peeked entry.
func (j *jfile) advance() {
	j.peeked = false
	j.qpos++
	j.next++
}

// seekIndex positions the file at entry index i (no read yet).
func (j *jfile) seekIndex(i uint64) {
	j.next, j.queue, j.qpos, j.peeked = i, j.queue[:0], 0, false
}

// items returns the data-object offsets of the peeked entry, into dst.
func (j *jfile) items(dst []uint64) ([]uint64, error) {
	o, err := j.object(j.head.off, jobjEntry)
	if err != nil {
		return dst, err
	}
	w := j.entryItem()
	for k := 64; k+w <= len(o); k += w {
		if w == 4 {
			dst = append(dst, uint64(binary.LittleEndian.Uint32(o[k:])))
		} else {
			dst = append(dst, binary.LittleEndian.Uint64(o[k:]))
		}
	}
	return dst, nil
}

// payload returns the data object's "FIELD=value" bytes, decompressed when stored compressed;
// valid until the next read from this file.
func (j *jfile) payload(off uint64) ([]byte, error) {
	if off > j.safe {
		return nil, fmt.Errorf("journal file %s: data object at %d is after its entry", j.path, off)
	}
	return j.payloadAt(off, false)
}

// payloadAt is payload; fresh reads around the block cache.
func (j *jfile) payloadAt(off uint64, fresh bool) ([]byte, error) {
	o, err := j.objectAt(off, jobjData, fresh)
	if err != nil {
		return nil, err
	}
	start := 64
	if j.compact() {
		start = 72
	}
	if len(o) < start {
		return nil, fmt.Errorf("journal file %s: data object at %d is too short", j.path, off)
	}
	p := o[start:]
	switch o[1] & (jobjCompressedXZ | jobjCompressedLZ4 | jobjCompressedZstd) {
	case 0:
		return p, nil
	case jobjCompressedZstd:
		j.zcount++
		out, err := zstdDecoder().DecodeAll(p, j.zout[:0])
		if err != nil {
			return nil, fmt.Errorf("journal file %s: data object at %d: zstd: %w", j.path, off, err)
		}
		j.zout = out
		return out, nil
	}
	return nil, fmt.Errorf("journal file %s: data object at %d: compression %d: %w", j.path, off, o[1], errJournalUnsupported)
}

// object returns the whole object at off (header included), checking its type; valid until
// the next read from this file.
func (j *jfile) object(off uint64, typ byte) ([]byte, error) { return j.objectAt(off, typ, false) }

func (j *jfile) objectAt(off uint64, typ byte, fresh bool) ([]byte, error) {
	if off%8 != 0 || off < backend.JournalHeaderMin {
		return nil, fmt.Errorf("journal file %s: bad object offset %d", j.path, off)
	}
	h, err := j.readAt(off, jobjHeader, fresh)
	if err != nil {
		return nil, err
	}
	size := binary.LittleEndian.Uint64(h[8:])
	if h[0] != typ || size < jobjHeader || size > jfileMaxObject {
		return nil, fmt.Errorf("journal file %s: object at %d is type %d size %d, want type %d", j.path, off, h[0], size, typ)
	}
	return j.readAt(off, size, fresh)
}

// readAt returns n bytes at off: from the block cache when they lie in one block (and fresh is
// false), else read directly.
func (j *jfile) readAt(off, n uint64, fresh bool) ([]byte, error) {
	if fresh {
		// fall through to the direct read
	} else if b := j.cache.get(j, off, n); b != nil {
		return b, nil
	}
	buf := j.scratch(int(n))
	if got, err := j.pread(buf, int64(off)); err != nil || got < len(buf) {
		return nil, fmt.Errorf("journal file %s: reading %d bytes at %d: %w", j.path, n, off, orShort(err))
	}
	return buf, nil
}

// scratch returns j.buf grown to n bytes.
func (j *jfile) scratch(n int) []byte {
	if cap(j.buf) < n {
		j.buf = make([]byte, n, max(n, 2*cap(j.buf)))
	}
	return j.buf[:n]
}

var (
	zstdOnce sync.Once
	zstdDec  *zstd.Decoder
)

// zstdDecoder is one decoder for the process: DecodeAll is safe for concurrent use, and
// compressed fields are rare (journald compresses fields of 512 bytes and more).
func zstdDecoder() *zstd.Decoder {
	zstdOnce.Do(func() {
		zstdDec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(jfileMaxObject))
	})
	return zstdDec
}
