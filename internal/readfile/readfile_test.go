package readfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRegular(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if b, err := Regular(small, 1024); err != nil || string(b) != "hello\n" {
		t.Errorf("small file: %q %v", b, err)
	}
	for path, want := range map[string]string{
		big:                        "more than the 1024",
		fifo:                       "a FIFO", // returns at once: a blocking open would hang here
		zero:                       "a character device",
		dir:                        "a directory",
		filepath.Join(dir, "none"): "no such file",
	} {
		_, err := Regular(path, 1024)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want an error naming it and %q", path, err, want)
		}
	}
}
