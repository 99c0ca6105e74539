//go:build unix

package file

import (
	"os"
	"syscall"
)

// devIno reads the device and inode that identify a file while it exists.
func devIno(fi os.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true //nolint:unconvert // Dev is int32 on some platforms
}

// linked reports whether an open file still has a name (a renamed file has; a deleted one
// has none), and whether that could be told.
func linked(f *os.File) (has, known bool) {
	fi, err := f.Stat()
	if err != nil {
		return false, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false, false
	}
	return st.Nlink > 0, true
}
