//go:build !linux

package web

import "time"

// CPU clocks are read on Linux only; elsewhere the figures that use them read 0.
func processCPU() time.Duration { return 0 }
func threadCPU() time.Duration  { return 0 }
