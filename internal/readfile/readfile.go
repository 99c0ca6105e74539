// Package readfile reads the small files an operator points specwatch at (the config, the
// saved cursor) without trusting what is there: a FIFO, a device, a directory or a file far
// larger than such a file can be is refused with an error naming it, instead of blocking the
// daemon or reading gigabytes into memory.
package readfile

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// Regular returns the contents of path if it is a regular file (after symlinks) of at most max
// bytes. The open does not block: a FIFO without a writer would otherwise hang the caller
// before anything could say why (a reload, or `run` before it listens).
func Regular(path string, max int64) ([]byte, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d such a file can be", path, fi.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(data)) > max { // it grew while being read
		return nil, fmt.Errorf("%s is more than the %d bytes such a file can be", path, max)
	}
	return data, nil
}

// OpenRegular opens path for reading if it is a regular file (after symlinks), without
// blocking on a FIFO, and returns it with its FileInfo; anything else is an error naming it.
// A file the caller was told is regular may have been swapped since (a log follower's stat,
// then its open).
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is %s, not a regular file", path, kind(fi.Mode()))
	}
	return f, fi, nil
}

func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file (" + m.String() + ")"
}
