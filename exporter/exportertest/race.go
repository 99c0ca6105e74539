//go:build race

package exportertest

// RaceEnabled: the race detector slows instrumented code by one to two orders of magnitude,
// unevenly, so timing comparisons are reported but not asserted under it.
const RaceEnabled = true
