package file

import (
	"hash/fnv"
	"io"
	"os"
)

// FingerprintBytes is how much of a file's start its fingerprint covers. An inode number is
// reused as soon as a file is deleted, so (device, inode) alone would take a new file for a
// rotated one and resume it in the middle; the first bytes of a log (its first line's
// timestamp) tell them apart, as in Vector's file source.
const FingerprintBytes = 256

// Identity says which file a position belongs to.
type Identity struct {
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
	// FPLen bytes from the start hash to FP (FNV-1a). FPLen grows with the file up to
	// FingerprintBytes; a file shorter than a saved FPLen is not that file.
	FPLen int    `json:"fp_len"`
	FP    uint64 `json:"fp"`
}

// fingerprint hashes the first n bytes of f; ok is false when f has fewer.
func fingerprint(f *os.File, n int) (uint64, bool) {
	var buf [FingerprintBytes]byte
	n = min(n, FingerprintBytes)
	if n == 0 {
		return fnv.New64a().Sum64(), true
	}
	got, err := f.ReadAt(buf[:n], 0)
	if got < n || (err != nil && err != io.EOF) {
		return 0, false
	}
	h := fnv.New64a()
	h.Write(buf[:n])
	return h.Sum64(), true
}

// matches reports whether f still starts with the bytes id was taken from.
func (id Identity) matches(f *os.File) bool {
	if id.FPLen == 0 {
		return true // nothing to compare yet: an empty file
	}
	fp, ok := fingerprint(f, id.FPLen)
	return ok && fp == id.FP
}

// grow extends the fingerprint to cover up to FingerprintBytes of a file of size bytes, once
// the bytes it covers so far still match.
func (id *Identity) grow(f *os.File, size int64) bool {
	n := int(min(size, FingerprintBytes))
	if n <= id.FPLen {
		return true
	}
	if !id.matches(f) {
		return false
	}
	fp, ok := fingerprint(f, n)
	if ok {
		id.FPLen, id.FP = n, fp
	}
	return true
}

// samePrefix reports whether a and b start with the same n bytes (n ≤ FingerprintBytes).
func samePrefix(a, b *os.File, n int) bool {
	fa, ok1 := fingerprint(a, n)
	fb, ok2 := fingerprint(b, n)
	return ok1 && ok2 && fa == fb
}
