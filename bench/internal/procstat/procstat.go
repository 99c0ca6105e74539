// Package procstat reads a process's CPU time and memory from /proc, for the load commands
// that measure specwatch from outside (bench/cmd).
package procstat

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// HZ is the kernel's USER_HZ: clock ticks a second in /proc/PID/stat.
const HZ = 100

// Ticks is the process's user and system time, in clock ticks.
func Ticks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	i := strings.LastIndexByte(string(b), ')') // the command name may hold spaces and parentheses
	if i < 0 || i+2 > len(b) {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64) // utime, field 14
	s, err2 := strconv.ParseInt(f[12], 10, 64) // stime, field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	return u + s, nil
}

// KB is the figure of the line of /proc/PID/status that starts with key ("VmRSS:",
// "VmHWM:"), in kB; 0 when there is none.
func KB(pid int, key string) (float64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key); ok {
			return strconv.ParseFloat(strings.Fields(v)[0], 64)
		}
	}
	return 0, sc.Err()
}
