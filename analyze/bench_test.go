package analyze

import (
	"bytes"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sim"
)

// BenchmarkAnalyzeMixed is `analyze` end to end (ingest, parse, model, report) over the mixed
// corpus: SGLang from 4 ranks, vLLM engine + spec lines, key=value lines, llama.cpp, 70 % noise.
func BenchmarkAnalyzeMixed(b *testing.B) {
	var corpus bytes.Buffer
	sum, err := sim.Generate(sim.Mixed(1, 200000), &corpus, nil)
	if err != nil {
		b.Fatal(err)
	}
	data := corpus.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a := New(Options{Location: time.UTC})
		if err := a.Read(bytes.NewReader(data), "mixed", 2026); err != nil {
			b.Fatal(err)
		}
		_ = a.Report()
	}
	b.ReportMetric(float64(sum.Lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
