//go:build unix

package file

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenFileRefusesFIFO: a log's name that became a FIFO between the scan's stat and its
// open is refused at once, never waited on (issue 27, item 8: the follower blocked in openat
// for good and read no file again).
func TestOpenFileRefusesFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "engine.log")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, _, err := openFile(path)
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a FIFO opened as a log file")
		}
	case <-time.After(5 * time.Second):
		// unblock the open so the goroutine ends, then fail
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatal("opening a FIFO as a log file blocks")
	}
}
