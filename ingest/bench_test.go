package ingest

import (
	"bytes"
	"testing"
)

// Each benchmark op is one entry read from an endless repetition of a fixture, so allocs/op is
// the steady-state count per entry and MB/s the input consumed.
func benchReader(b *testing.B, name string, shape Shape) {
	data := fixture(b, name)
	var perEntry int
	switch shape {
	case Raw, JSON:
		perEntry = len(data) / bytes.Count(data, []byte("\n"))
	case Export:
		es, _, _ := readAll(b, data, ReaderOptions{})
		perEntry = len(data) / len(es)
	}
	rd := NewReader(&loopReader{data: data}, ReaderOptions{Shape: shape})
	var e Entry
	for range 100 { // buffers reach their working size outside the measurement
		if err := rd.Next(&e); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(perEntry))
	b.ReportAllocs()
	for b.Loop() {
		if err := rd.Next(&e); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReaderRaw(b *testing.B)      { benchReader(b, "journal.short-iso", Raw) }
func BenchmarkReaderJSON(b *testing.B)     { benchReader(b, "journal-all.json", JSON) }
func BenchmarkReaderExport(b *testing.B)   { benchReader(b, "journal.export", Export) }
func BenchmarkReaderJSONNull(b *testing.B) { benchReader(b, "journal.json", JSON) }

func BenchmarkDetect(b *testing.B) {
	data := fixture(b, "journal.export")
	b.ReportAllocs()
	for b.Loop() {
		Detect(data)
	}
}
