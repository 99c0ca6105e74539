//go:build linux

package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/specwatch/specwatch/internal/testkit/testproc"
	"github.com/specwatch/specwatch/internal/testkit/testtmpfs"
)

// helperEnv makes the test binary a process that does one Write of its value (a path) and
// exits, for strace to watch.
const helperEnv = "ATOMICFILE_WRITE"

func TestMain(m *testing.M) {
	if path := os.Getenv(helperEnv); path != "" {
		if err := Write(path, []byte("new\n"), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestWriteSyncsFileThenDirectory watches the real system calls of a Write (strace): the
// temporary file is fsynced before the rename, and the directory after it. Without the first a
// crash can leave an empty file under the name; without the second, the old one.
func TestWriteSyncsFileThenDirectory(t *testing.T) {
	strace := testproc.NeedBinary(t, "strace", "strace")
	dir := t.TempDir()
	path := filepath.Join(dir, "state")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(strace, "-f", "-y", "-o", trace, "-e", "trace=fsync,fdatasync,rename,renameat,renameat2",
		os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("strace cannot trace here: %v: %s", err, out)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string // in order: "fsync temp", "rename", "fsync dir"
	tmp := regexp.QuoteMeta(filepath.Join(dir, ".state.")) + `\d+`
	fsyncTemp := regexp.MustCompile(`fsync\(\d+<` + tmp + `>\)\s+= 0`)
	rename := regexp.MustCompile(`rename(at2?)?\(.*"` + tmp + `".*"` + regexp.QuoteMeta(path) + `".*\)\s+= 0`)
	fsyncDir := regexp.MustCompile(`fsync\(\d+<` + regexp.QuoteMeta(dir) + `>\)\s+= 0`)
	for _, line := range straceRecords(string(b)) {
		switch {
		case fsyncTemp.MatchString(line):
			calls = append(calls, "fsync temp")
		case rename.MatchString(line):
			calls = append(calls, "rename")
		case fsyncDir.MatchString(line):
			calls = append(calls, "fsync dir")
		}
	}
	if want := []string{"fsync temp", "rename", "fsync dir"}; !slices.Equal(calls, want) {
		t.Fatalf("system calls %q, want %q; trace:\n%s", calls, want, b)
	}
	holds(t, path, []byte("new\n"), 0o600)
}

// straceRecords returns strace -f's lines with each call whole: a call that another thread's
// event (Go's preemption signal, SIGURG) interrupted is written as "PID call(args <unfinished
// ...>" and later "PID <... call resumed>rest", and is joined here into "PID call(argsrest".
func straceRecords(trace string) []string {
	var out []string
	pending := map[string]string{} // by PID: the unfinished call's start
	for line := range strings.Lines(trace) {
		line = strings.TrimRight(line, "\n")
		pid, rest, _ := strings.Cut(line, " ")
		if start, ok := strings.CutSuffix(line, " <unfinished ...>"); ok {
			pending[pid] = start
			continue
		}
		if strings.HasPrefix(strings.TrimLeft(rest, " "), "<... ") {
			if start, ok := pending[pid]; ok {
				if _, tail, ok := strings.Cut(rest, " resumed>"); ok {
					delete(pending, pid)
					out = append(out, start+tail)
					continue
				}
			}
		}
		out = append(out, line)
	}
	return out
}

// TestStraceRecords: a call another thread's signal split in two is joined, whole calls and
// other PIDs' lines are kept in order (the trace of a CI run where the fsync was split).
func TestStraceRecords(t *testing.T) {
	trace := `15593 --- SIGURG {si_signo=SIGURG, si_code=SI_TKILL, si_pid=15593, si_uid=0} ---
15597 fsync(5</tmp/d/.state.4030357319> <unfinished ...>
15593 --- SIGURG {si_signo=SIGURG, si_code=SI_TKILL, si_pid=15593, si_uid=0} ---
15597 <... fsync resumed>)              = 0
15597 renameat(AT_FDCWD</x>, "/tmp/d/.state.4030357319", AT_FDCWD</x>, "/tmp/d/state") = 0
15597 fsync(5</tmp/d>) = 0
`
	want := []string{
		"15593 --- SIGURG {si_signo=SIGURG, si_code=SI_TKILL, si_pid=15593, si_uid=0} ---",
		"15593 --- SIGURG {si_signo=SIGURG, si_code=SI_TKILL, si_pid=15593, si_uid=0} ---",
		"15597 fsync(5</tmp/d/.state.4030357319>)              = 0",
		`15597 renameat(AT_FDCWD</x>, "/tmp/d/.state.4030357319", AT_FDCWD</x>, "/tmp/d/state") = 0`,
		"15597 fsync(5</tmp/d>) = 0",
	}
	if got := straceRecords(trace); !slices.Equal(got, want) {
		t.Errorf("straceRecords:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWriteFullDisk: a write that fails for space (a real 16 KiB tmpfs, filled) leaves the
// old contents and no temporary file; once there is space again the next Write succeeds.
func TestWriteFullDisk(t *testing.T) {
	testtmpfs.Run(t, "size=16k", func(dir string, _ func(string)) {
		path := filepath.Join(dir, "state")
		if err := Write(path, []byte("old\n"), 0o600); err != nil {
			t.Error(err)
			return
		}
		filler := filepath.Join(dir, "filler")
		f, err := os.Create(filler)
		if err != nil {
			t.Error(err)
			return
		}
		for {
			if _, err := f.Write(make([]byte, 4096)); err != nil {
				break
			}
		}
		f.Close()
		err = Write(path, bytes.Repeat([]byte("n"), 8192), 0o600)
		if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "replacing "+path+": ") {
			t.Errorf("Write to a full disk: %v; want ENOSPC naming %s", err, path)
		}
		if got, _ := os.ReadFile(path); string(got) != "old\n" {
			t.Errorf("after a failed write the file holds %q, want the old contents", got)
		}
		if n := names(t, dir); !slices.Equal(n, []string{"filler", "state"}) {
			t.Errorf("directory holds %q, want no temporary file", n)
		}
		os.Remove(filler)
		if err := Write(path, []byte("new\n"), 0o600); err != nil {
			t.Errorf("Write after freeing space: %v", err)
		}
		if got, _ := os.ReadFile(path); string(got) != "new\n" {
			t.Errorf("file holds %q, want new", got)
		}
	})
}

// TestWriteReadOnly: on a filesystem remounted read-only the error is EROFS naming the path,
// and nothing changes.
func TestWriteReadOnly(t *testing.T) {
	testtmpfs.Run(t, "size=1m", func(dir string, remount func(string)) {
		path := filepath.Join(dir, "state")
		if err := Write(path, []byte("old\n"), 0o600); err != nil {
			t.Error(err)
			return
		}
		remount("ro")
		if err := Write(path, []byte("new\n"), 0o600); !errors.Is(err, syscall.EROFS) || !strings.Contains(err.Error(), path) {
			t.Errorf("Write to a read-only fs: %v; want EROFS naming %s", err, path)
		}
		if got, _ := os.ReadFile(path); string(got) != "old\n" {
			t.Errorf("file holds %q on a read-only fs, want the old contents", got)
		}
		if n := names(t, dir); !slices.Equal(n, []string{"state"}) {
			t.Errorf("directory holds %q", n)
		}
	})
}
