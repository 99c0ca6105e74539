package statelock

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestAcquire: a second holder in another process is refused with the first one's PID; after
// the first releases, it may take the lock. flock locks belong to open file descriptions, so a
// second Acquire in this process is refused too, which lets the test stay in one process for
// the release half.
func TestAcquire(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Acquire(dir); err == nil || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second Acquire: %v, want a refusal naming pid %d", err, os.Getpid())
	}
	// Another process, as a second daemon would be: flock(1) with -n fails at once.
	if _, err := exec.LookPath("flock"); err == nil {
		if err := exec.Command("flock", "-n", dir+"/"+File, "true").Run(); err == nil {
			t.Error("another process took the lock while it was held")
		}
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l2, err := Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	l2.Release()
}
