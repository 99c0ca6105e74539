//go:build linux

package native

import (
	"encoding/binary"
	"math/bits"
)

// jenkins64 is the data hash of journal files without the keyed hash (systemd < 246, or
// written with SYSTEMD_JOURNAL_KEYED_HASH=0): Bob Jenkins' lookup3 hashlittle2 with both
// seeds 0, its two 32-bit results joined (primary high). libsystemd looks a match's data
// object up with it, so a reader that did not would read what libsystemd cannot find.
func jenkins64(k []byte) uint64 {
	a := 0xdeadbeef + uint32(len(k))
	b, c := a, a
	le := binary.LittleEndian
	for len(k) > 12 {
		a += le.Uint32(k)
		b += le.Uint32(k[4:])
		c += le.Uint32(k[8:])
		a -= c
		a ^= bits.RotateLeft32(c, 4)
		c += b
		b -= a
		b ^= bits.RotateLeft32(a, 6)
		a += c
		c -= b
		c ^= bits.RotateLeft32(b, 8)
		b += a
		a -= c
		a ^= bits.RotateLeft32(c, 16)
		c += b
		b -= a
		b ^= bits.RotateLeft32(a, 19)
		a += c
		c -= b
		c ^= bits.RotateLeft32(b, 4)
		b += a
		k = k[12:]
	}
	if len(k) == 0 {
		return uint64(c)<<32 | uint64(b)
	}
	var t [12]byte
	copy(t[:], k)
	a += le.Uint32(t[:])
	b += le.Uint32(t[4:])
	c += le.Uint32(t[8:])
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	return uint64(c)<<32 | uint64(b)
}
