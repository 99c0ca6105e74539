package procstat

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Daemon runs `bin run` on an empty journal directory with extra flags, waits warm, and
// measures its CPU (user + system, percent of a core) over measure, then its VmRSS and VmHWM
// in kB. The daemon is killed before Daemon returns.
func Daemon(bin string, extra []string, warm, measure time.Duration) (cpuPct, rssKB, hwmKB float64, err error) {
	dir, err := os.MkdirTemp("", "specwatch-load")
	if err != nil {
		return 0, 0, 0, err
	}
	defer os.RemoveAll(dir)
	journal := filepath.Join(dir, "journal")
	if err := os.Mkdir(journal, 0o755); err != nil {
		return 0, 0, 0, err
	}
	args := append([]string{"run", "--journal.directory", journal, "--journal.backend", "native",
		"--state.directory", filepath.Join(dir, "state"), "--web.listen-address", "127.0.0.1:0",
		"--log.format", "json", "--log.level", "warn"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, fmt.Errorf("starting %s: %w", bin, err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	time.Sleep(warm)
	t0 := time.Now()
	c0, err := Ticks(pid)
	if err != nil {
		return 0, 0, 0, err
	}
	time.Sleep(measure)
	t1 := time.Now()
	c1, err := Ticks(pid)
	if err != nil {
		return 0, 0, 0, err
	}
	if rssKB, err = KB(pid, "VmRSS:"); err != nil {
		return 0, 0, 0, err
	}
	if hwmKB, err = KB(pid, "VmHWM:"); err != nil {
		return 0, 0, 0, err
	}
	return 100 * float64(c1-c0) / HZ / t1.Sub(t0).Seconds(), rssKB, hwmKB, nil
}
