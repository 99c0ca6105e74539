// Package statelock keeps two daemons off one state directory. Two specwatch processes on the
// same directory would overwrite each other's saved positions, each resuming from the other's,
// and neither would say anything; the second now refuses to start, naming the first.
package statelock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// File is the lock's name inside the state directory.
const File = "lock"

// Lock is a held lock; the kernel releases it when the process ends, however it ends, so a
// crash leaves nothing stale behind.
type Lock struct{ f *os.File }

// Acquire takes dir's lock for this process, or fails naming the process that holds it.
//
// The descriptor that holds the lock is read-only (flock needs no write access): a daemon that
// kept a file open for writing in its state directory would make remounting the directory
// read-only fail ("mount point is busy"), as the soak's read-only-state fault does.
func Acquire(dir string) (*Lock, error) {
	path := filepath.Join(dir, File)
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("locking state directory %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("state directory %s is in use by another specwatch (pid %s): one daemon per state directory", dir, holder(f))
		}
		return nil, fmt.Errorf("locking state directory %s: %w", path, err)
	}
	// The PID is for the message above and for operators; the flock is the lock. A state
	// directory that is read-only already keeps the previous holder's PID.
	os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	return &Lock{f: f}, nil
}

// holder reads the PID the holder wrote, or says it is unknown.
func holder(f *os.File) string {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n]))); err == nil && pid > 0 {
		return strconv.Itoa(pid)
	}
	return "unknown"
}

// Release gives the lock up (the end of the process does too).
func (l *Lock) Release() error { return l.f.Close() }
