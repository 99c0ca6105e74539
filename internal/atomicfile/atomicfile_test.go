package atomicfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func holds(t *testing.T, path string, want []byte, perm os.FileMode) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s holds %q (%v), want %q", path, got, err, want)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != perm {
		t.Errorf("%s has mode %v, want %v", path, fi.Mode().Perm(), perm)
	}
}

// TestWriteCreatesAndReplaces: a new file, then a replacement with other contents and mode;
// the mode is the one asked for whatever the umask, and no temporary file stays.
func TestWriteCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state")
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	if err := Write(path, []byte("one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	holds(t, path, []byte("one\n"), 0o600)
	if err := Write(path, []byte("two, longer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	holds(t, path, []byte("two, longer\n"), 0o644)
	if err := Write(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	holds(t, path, nil, 0o600)
	if n := names(t, dir); !slices.Equal(n, []string{"state"}) {
		t.Errorf("directory holds %q, want only state", n)
	}
}

// TestWriteRelativePath: a bare name is written in the working directory.
func TestWriteRelativePath(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := Write("state", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	holds(t, "state", []byte("x"), 0o600)
}

// TestWriteFailedRename: the rename fails after the temporary file was written and synced (the
// name is a non-empty directory): the error names the path and wraps the cause, what was under
// the name is untouched, and the temporary file is gone.
func TestWriteFailedRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state")
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	err := Write(path, []byte("new"), 0o600)
	var le *os.LinkError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "replacing "+path+": ") {
		t.Fatalf("Write over a directory: %v; want a rename error naming %s", err, path)
	}
	if n := names(t, dir); !slices.Equal(n, []string{"state"}) {
		t.Errorf("directory holds %q after a failed rename, want only state", n)
	}
	if n := names(t, path); !slices.Equal(n, []string{"inside"}) {
		t.Errorf("the directory under the name changed: %q", n)
	}
}

// TestWriteMissingDirectory: the error names the path and is fs.ErrNotExist.
func TestWriteMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absent", "state")
	err := Write(path, []byte("x"), 0o600)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Write into a missing directory: %v; want ErrNotExist naming %s", err, path)
	}
}

// TestSyncDir: a directory syncs; a missing one is an error naming it.
func TestSyncDir(t *testing.T) {
	dir := t.TempDir()
	if err := SyncDir(dir); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "absent")
	if err := SyncDir(missing); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("SyncDir of a missing directory: %v", err)
	}
}
