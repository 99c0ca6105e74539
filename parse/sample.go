// Package parse turns one log line into a sample.Sample. It is pure (bytes in, Sample out: no
// I/O, no clock, no allocation on the hot path) so that the same log always yields the same
// samples, offline or live, and so that it can be fuzzed and benchmarked in isolation.
package parse

import "github.com/specwatch/specwatch/sample"

// Record is a line being read: its Sample, the best timestamp the line carries (which Stream
// resolves to the Sample's Time) and what a llama.cpp line leaves for Stream's joins.
type Record struct {
	sample.Sample
	Stamp Stamp
	llama llamaTag
}

// Reset clears r for reuse.
func (r *Record) Reset() { *r = Record{} }

// numFields is one past the last field: the readers' "no field".
const numFields = sample.Field(sample.NumFields)
