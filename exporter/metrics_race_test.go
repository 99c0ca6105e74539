//go:build race

package exporter

// raceEnabled: the race detector slows instrumented code by one to two orders of magnitude,
// unevenly, so timing comparisons are reported but not asserted under it.
const raceEnabled = true
