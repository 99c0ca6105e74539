// Package soak is production in an afternoon: a simulated SGLang service replayed into a
// private journald, `specwatch run` following it with Prometheus and VictoriaMetrics attached,
// and faults at random moments (TestSoak). `go test` runs the short version;
// SPECWATCH_SOAK=long (scripts/soak.sh) a simulated week, its report in SPECWATCH_SOAK_REPORT.
// It has no code of its own.
package soak
