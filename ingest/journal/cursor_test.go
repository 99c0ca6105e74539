package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testtmpfs"
)

func TestCursorStoreRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := NewCursorStore(dir)
	if c, err := s.Load(); c != "" || err != nil {
		t.Fatalf("Load of a missing file = %q, %v; want \"\", nil", c, err)
	}
	if err := s.Save("s=1;i=2"); err != nil {
		t.Fatal(err)
	}
	if c, err := NewCursorStore(dir).Load(); c != "s=1;i=2" || err != nil {
		t.Fatalf("Load = %q, %v", c, err)
	}
	s.Mark([]byte("s=1;i=3"))
	if !s.Pending() {
		t.Fatal("a new mark is not pending")
	}
	if err := s.FlushDue(time.Now()); err != nil {
		t.Fatal(err)
	}
	if c, _ := NewCursorStore(dir).Load(); c != "s=1;i=3" || s.Pending() || s.Saved() != c {
		t.Fatalf("after flush: file %q, pending %v, saved %q", c, s.Pending(), s.Saved())
	}
	// FlushDue writes at most once per Interval; Flush always.
	s.Mark([]byte("s=1;i=4"))
	if err := s.FlushDue(time.Now()); err != nil || !s.Pending() {
		t.Fatalf("FlushDue right after a flush wrote (err %v, pending %v)", err, s.Pending())
	}
	if err := s.FlushDue(time.Now().Add(s.Interval)); err != nil || s.Pending() {
		t.Fatalf("FlushDue after Interval did not write (err %v)", err)
	}
	if err := s.Flush(); err != nil { // nothing new: no write
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != CursorFile {
		t.Fatalf("directory holds %v; temporary files left behind?", ents)
	}
	if err := NewCursorStore(filepath.Join(dir, "missing")).Save("x"); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("Save into a missing directory: %v (want an error naming it)", err)
	}
}

// TestCursorStoreMarkAllocs: the pipeline marks every entry; that must not allocate.
func TestCursorStoreMarkAllocs(t *testing.T) {
	s := NewCursorStore(t.TempDir())
	c := []byte("s=0b3c6f0f4a6f4d6c9c2b5d8e1f2a3b4c;i=1a;b=0b3c6f0f4a6f4d6c9c2b5d8e1f2a3b4c;m=5f5e100;t=660b1780f2400;x=1")
	s.Mark(c)
	if n := testing.AllocsPerRun(1000, func() { s.Mark(c) }); n != 0 {
		t.Fatalf("Mark allocates %v times", n)
	}
}

// TestCursorStoreReadOnly: a flush to a read-only filesystem fails with an error naming the
// file, keeps the mark, and succeeds once the filesystem is writable again.
func TestCursorStoreReadOnly(t *testing.T) {
	testtmpfs.Run(t, "size=1m", func(dir string, remount func(string)) {
		s := NewCursorStore(dir)
		if err := s.Save("s=c1"); err != nil {
			t.Error(err)
			return
		}
		remount("ro")
		s.Mark([]byte("s=c2"))
		err := s.Flush()
		if !errors.Is(err, syscall.EROFS) || !strings.Contains(err.Error(), s.Path()) {
			t.Errorf("flush to a read-only fs: %v; want EROFS naming %s", err, s.Path())
		}
		s.Mark([]byte("s=c3")) // marks keep coming while the disk is unwritable
		if err := s.Flush(); err == nil || !s.Pending() || s.Err() == nil {
			t.Errorf("second flush: %v, pending %v", err, s.Pending())
		}
		if c, _ := NewCursorStore(dir).Load(); c != "s=c1" {
			t.Errorf("file changed to %q on a read-only fs", c)
		}
		remount("rw")
		if err := s.Flush(); err != nil || s.Pending() || s.Err() != nil {
			t.Errorf("flush after remount rw: %v", err)
		}
		if c, _ := NewCursorStore(dir).Load(); c != "s=c3" {
			t.Errorf("after recovery the file holds %q, want the latest mark s=c3", c)
		}
	})
}

// TestCursorStoreDiskFull: same with a full disk (a 16 KiB tmpfs filled up), and no temporary
// file is left behind by the failed attempts.
func TestCursorStoreDiskFull(t *testing.T) {
	testtmpfs.Run(t, "size=16k", func(dir string, _ func(string)) {
		s := NewCursorStore(dir)
		if err := s.Save("s=c1"); err != nil {
			t.Error(err)
			return
		}
		filler := filepath.Join(dir, "filler")
		f, _ := os.Create(filler)
		for {
			if _, err := f.Write(make([]byte, 4096)); err != nil {
				break
			}
		}
		f.Close()
		s.Mark([]byte("s=c2;i=" + strings.Repeat("f", 100)))
		if err := s.Flush(); !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("flush to a full disk: %v, want ENOSPC", err)
		}
		if c, _ := NewCursorStore(dir).Load(); c != "s=c1" {
			t.Errorf("file holds %q after a failed flush, want s=c1 intact", c)
		}
		os.Remove(filler)
		if err := s.Flush(); err != nil {
			t.Errorf("flush after freeing space: %v", err)
		}
		if c, _ := NewCursorStore(dir).Load(); !strings.HasPrefix(c, "s=c2;i=") {
			t.Errorf("file holds %q, want the mark s=c2;i=…", c)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Errorf("temporary files left: %v", ents)
		}
	})
}

// TestCursorStoreHostileFile: what the cursor path may hold instead of a cursor — a large file
// of zeros, a FIFO, a symlink to /dev/zero or to a system file, garbage — is refused at once
// with an error naming the file and quoting none of it, never read whole.
func TestCursorStoreHostileFile(t *testing.T) {
	for name, make := range map[string]func(path string) error{
		"10 MB of zeros": func(p string) error { return os.WriteFile(p, make([]byte, 10<<20), 0o600) },
		"a FIFO":         func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"/dev/zero":      func(p string) error { return os.Symlink("/dev/zero", p) },
		"a system file":  func(p string) error { return os.Symlink("/etc/passwd", p) },
		"garbage": func(p string) error {
			return os.WriteFile(p, []byte("s=1;secret=hunter2;"+strings.Repeat("y", 200)), 0o600)
		},
		"a directory": func(p string) error { return os.Mkdir(p, 0o700) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s := NewCursorStore(dir)
			if err := make(s.Path()); err != nil {
				t.Fatal(err)
			}
			c, err := s.Load()
			if err == nil || c != "" || !strings.Contains(err.Error(), s.Path()) {
				t.Fatalf("Load = %q, %v; want a refusal naming %s", c, err, s.Path())
			}
			if len(err.Error()) > 300 || strings.Contains(err.Error(), "root:") || strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error quotes too much of the file: %.400q", err)
			}
		})
	}
}

func TestValidCursor(t *testing.T) {
	good := "s=6f1b4a3c9e2d4b8a8c1f2e3d4c5b6a79;i=1a2b;b=0123456789abcdef0123456789abcdef;m=5f5e100;t=5f7a3c2b1d0e9;x=9f8e7d6c5b4a3928"
	for c, want := range map[string]bool{good: true, "s=1;i=2": true, "": false, "s=": false, "s=1;;i=2": false,
		"q=1": false, "s=1;i=zz": false, "s=1\ni=2": false, strings.Repeat("s=1;", 2000) + "s=1": false} {
		if got := ValidCursor([]byte(c)); got != want {
			t.Errorf("ValidCursor(%.40q) = %v, want %v", c, got, want)
		}
	}
}
