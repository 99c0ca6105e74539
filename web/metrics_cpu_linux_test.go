//go:build linux

package web

import (
	"syscall"
	"time"
	"unsafe"
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

// threadCPU is the CPU time of the calling OS thread (CLOCK_THREAD_CPUTIME_ID), for a loop
// locked to its thread: its work per CPU second, unlike per wall second, does not depend on
// how much of the machine the neighbours leave it.
func threadCPU() time.Duration {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
