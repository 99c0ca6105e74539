package report

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUseColorTerminal: auto colours a real terminal (the slave side of a new pseudo-terminal)
// unless NO_COLOR is set.
func TestUseColorTerminal(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("SKIPPED: no pseudo-terminals here: %v", err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the terminal: %v", err)
	}
	defer tty.Close()
	if got, err := UseColor("auto", tty, func(string) string { return "" }); err != nil || !got {
		t.Errorf("auto on a terminal: %v %v, want colours", got, err)
	}
	noColor := func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	}
	if got, _ := UseColor("auto", tty, noColor); got {
		t.Error("auto on a terminal with NO_COLOR set: colours")
	}
}
