//go:build linux

package native

import (
	"os"
	"testing"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
)

// BenchmarkReadDir reads the journal directory SPECWATCH_BENCH_JOURNAL to its end (its
// SPECWATCH_BENCH_UNIT, when set) with the native reader: the reader's own cost per entry,
// without parsing or the model, on a journal an operator chooses (one with containers' fields,
// say, to see what reading them costs). Skipped when the variable is unset.
func BenchmarkReadDir(b *testing.B) {
	dir := os.Getenv("SPECWATCH_BENCH_JOURNAL")
	if dir == "" {
		b.Skip("SPECWATCH_BENCH_JOURNAL names no journal directory")
	}
	o := backend.Options{Dir: dir, Head: true, NoFollow: true}
	if u := os.Getenv("SPECWATCH_BENCH_UNIT"); u != "" {
		o.Units = []string{u}
	}
	b.ReportAllocs()
	var n int
	for b.Loop() {
		src, err := Open(o)
		if err != nil {
			b.Fatal(err)
		}
		var e ingest.Entry
		n = 0
		for {
			ok, err := src.Next(&e, 0)
			if err != nil || !ok {
				break
			}
			n++
		}
		src.Close()
	}
	b.ReportMetric(float64(n), "entries")
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}
