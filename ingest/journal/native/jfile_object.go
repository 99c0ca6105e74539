//go:build linux

package native

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"

	"github.com/klauspost/compress/zstd"
	// LZ4 and XZ: systemd before 246 compressed with XZ, builds without zstd with LZ4; pure Go,
	// so that the native reader reads every file and CGO_ENABLED=0 builds do too.
	"github.com/pierrec/lz4/v4"
	"github.com/ulikunitz/xz"
)

// Objects are checked as libsystemd 252 checks them when it moves to one
// (journal_file_move_to_object: check_object_header, check_object), so that this reader
// rejects exactly the objects libsystemd rejects; what libsystemd then does with a rejected
// object (skip the field, skip the entry, end the file) is the caller's.

// jfieldMax bounds a decompressed field: journald's own limit on a field (DATA_SIZE_MAX).
const jfieldMax = 768 << 20

var (
	// errBadObject: the object fails libsystemd's checks (its EBADMSG and EADDRNOTAVAIL).
	errBadObject = errors.New("bad object")
	// errUninit: the object was never written (size 0): a tail lost in a crash, not counted.
	errUninit = errors.New("uninitialized object")
	// errCompression: a compressed field libsystemd fails the whole entry on (more than one
	// compression flag: EPROTONOSUPPORT; an LZ4 size over 2 GiB: EFBIG), where other decoding
	// errors skip the field. An XZ field that does not decode is skipped too (errBadObject):
	// sd_journal_get_data, the reference, passes over it.
	errCompression = errors.New("undecodable compressed field")
)

// minObject is the smallest size of each object type (libsystemd's minimum_header_size).
func (j *jfile) minObject(typ byte) uint64 {
	switch typ {
	case jobjData:
		return j.dataPayload()
	case jobjField:
		return 24
	case jobjEntry:
		return 64
	case jobjDataHashTable, jobjFieldHashTable:
		return 16
	case jobjEntryArray:
		return 24
	case jobjTag:
		return 64
	}
	return jobjHeader
}

// dataPayload is where a data object's payload starts.
func (j *jfile) dataPayload() uint64 {
	if j.compact() {
		return 72
	}
	return 64
}

func (j *jfile) badf(format string, args ...any) error {
	return fmt.Errorf("journal file %s: %w: %s", j.path, errBadObject, fmt.Sprintf(format, args...))
}

// objectHeader reads and checks the header of the object at off; size is the object's.
func (j *jfile) objectHeader(off uint64, typ byte, fresh bool) (size uint64, err error) {
	if off%8 != 0 || off < j.hsize {
		return 0, j.badf("object offset %d", off)
	}
	if err := j.within(off, jobjHeader); err != nil {
		return 0, err
	}
	h, err := j.readAt(off, jobjHeader, fresh)
	if err != nil {
		return 0, err
	}
	size = binary.LittleEndian.Uint64(h[8:])
	switch {
	case size == 0:
		return 0, fmt.Errorf("journal file %s: object at %d: %w", j.path, off, errUninit)
	case size < jobjHeader || h[0] == 0 || h[0] != typ:
		return 0, j.badf("object at %d is type %d size %d, want type %d", off, h[0], size, typ)
	case size < j.minObject(h[0]):
		return 0, j.badf("object at %d is too short (%d bytes)", off, size)
	}
	return size, j.within(off, size)
}

// within checks that n bytes at off lie in the file, as the last fstat saw it, or a new one
// (the file grows while journald writes).
func (j *jfile) within(off, n uint64) error {
	if n > ^uint64(0)-off {
		return j.badf("object at %d: size %d", off, n)
	}
	if off+n <= j.size {
		return nil
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(j.fd, &st); err == nil {
		j.size = uint64(st.Size)
	}
	if off+n > j.size {
		return j.badf("object at %d (%d bytes) ends after the file (%d bytes)", off, n, j.size)
	}
	return nil
}

// objectAt returns the whole object at off, checked; valid until the next read from this file.
func (j *jfile) objectAt(off uint64, typ byte, fresh bool) ([]byte, error) {
	size, err := j.objectHeader(off, typ, fresh)
	if err != nil {
		return nil, err
	}
	o, err := j.readAt(off, size, fresh)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	switch typ {
	case jobjData:
		if (le.Uint64(o[40:]) == 0) != (le.Uint64(o[56:]) == 0) || size <= j.dataPayload() ||
			(le.Uint64(o[24:])|le.Uint64(o[32:])|le.Uint64(o[40:])|le.Uint64(o[48:]))%8 != 0 {
			return nil, j.badf("data object at %d", off)
		}
	case jobjEntry:
		w := uint64(j.entryItem())
		seq, rt, mono := le.Uint64(o[16:]), le.Uint64(o[24:]), le.Uint64(o[32:])
		if (size-64)%w != 0 || size == 64 || seq == 0 || rt == 0 || rt >= 1<<55 || mono >= 1<<55 {
			return nil, j.badf("entry object at %d", off)
		}
	}
	return o, nil
}

// object is objectAt through the block cache.
func (j *jfile) object(off uint64, typ byte) ([]byte, error) { return j.objectAt(off, typ, false) }

// payloadAt returns the data object's "FIELD=value" bytes, decompressed when stored
// compressed; valid until the next read from this file. Fresh reads around the block cache.
func (j *jfile) payloadAt(off uint64, fresh bool) ([]byte, error) {
	o, err := j.objectAt(off, jobjData, fresh)
	if err != nil {
		return nil, err
	}
	p := o[j.dataPayload():]
	c := o[1] & (jobjCompressedXZ | jobjCompressedLZ4 | jobjCompressedZstd)
	if c == 0 {
		return p, nil
	}
	j.zcount++
	var out []byte
	switch c {
	case jobjCompressedZstd:
		out, err = zstdDecoder().DecodeAll(p, j.zout[:0])
	case jobjCompressedLZ4:
		out, err = j.unlz4(p)
	case jobjCompressedXZ:
		out, err = j.unxz(p)
		if err != nil {
			// The field is passed over, as sd_journal_get_data passes over it (the differential
			// harness: the entry with its other fields, in damaged copies and systemd's AFL
			// journals alike).
			return nil, fmt.Errorf("journal file %s: data object at %d: xz: %v: %w", j.path, off, err, errBadObject)
		}
	default:
		err = errCompression
	}
	if errors.Is(err, errCompression) {
		return nil, fmt.Errorf("journal file %s: data object at %d (flags %#x): %w", j.path, off, o[1], err)
	}
	if err != nil {
		return nil, j.badf("data object at %d: decompressing: %v", off, err)
	}
	j.zout = out
	return out, nil
}

// unlz4 decodes journald's LZ4 form: the decompressed size (64-bit little endian), then one
// LZ4 block.
func (j *jfile) unlz4(p []byte) ([]byte, error) {
	if len(p) <= 8 {
		return nil, errors.New("lz4: too short")
	}
	n := binary.LittleEndian.Uint64(p)
	if n > 1<<31-1 {
		return nil, fmt.Errorf("lz4: %d bytes: %w", n, errCompression)
	}
	if n > jfieldMax {
		return nil, fmt.Errorf("lz4: %d bytes", n)
	}
	out := j.zout[:0]
	if uint64(cap(out)) < n {
		out = make([]byte, n)
	}
	out = out[:n]
	got, err := lz4.UncompressBlock(p[8:], out)
	if err != nil || uint64(got) != n {
		return nil, fmt.Errorf("lz4: %d of %d bytes: %v", got, n, err)
	}
	return out, nil
}

// unxz decodes one XZ stream.
func (j *jfile) unxz(p []byte) ([]byte, error) {
	r, err := xz.NewReader(bytes.NewReader(p))
	if err != nil {
		return nil, err
	}
	b := bytes.NewBuffer(j.zout[:0])
	if _, err := io.Copy(b, io.LimitReader(r, jfieldMax+1)); err != nil {
		return nil, err
	}
	if b.Len() > jfieldMax {
		return nil, errors.New("xz: field too large")
	}
	return b.Bytes(), nil
}

var (
	zstdOnce sync.Once
	zstdDec  *zstd.Decoder
)

// zstdDecoder is one decoder for the process: DecodeAll is safe for concurrent use, and
// compressed fields are rare (journald compresses fields of 512 bytes and more).
func zstdDecoder() *zstd.Decoder {
	zstdOnce.Do(func() {
		zstdDec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(jfieldMax))
	})
	return zstdDec
}
