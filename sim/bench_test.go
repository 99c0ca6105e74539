package sim

import (
	"io"
	"testing"
)

// countingWriter counts bytes so that the benchmark can report throughput without keeping them.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// BenchmarkGenerate measures lines per second for the Mixed corpus in each family of formats.
func BenchmarkGenerate(b *testing.B) {
	const lines = 200_000
	for _, f := range []Format{FormatRaw, FormatShort, FormatJSON, FormatExport} {
		b.Run(f.String(), func(b *testing.B) {
			s := Mixed(1, lines)
			s.Format = f
			b.ReportAllocs()
			var w countingWriter
			for b.Loop() {
				if _, err := Generate(s, &w, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(w.n / int64(b.N))
			b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// BenchmarkGenerateTruth adds the cost of the ground-truth callback.
func BenchmarkGenerateTruth(b *testing.B) {
	const lines = 200_000
	s := Mixed(1, lines)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if _, err := Generate(s, io.Discard, func(Truth) { n++ }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
