//go:build unix

package exporter

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the test process has used (user + system, all threads): on a
// shared machine it measures a benchmark's cost where wall time measures the neighbours too.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
