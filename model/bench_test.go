package model

import (
	"bufio"
	"bytes"
	"testing"
	"time"

	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sample"
	"github.com/specwatch/specwatch/sim"
)

// samplesOf parses a scenario once into samples whose byte slices stay valid (each line is its
// own copy), so that the benchmark measures the model alone.
func samplesOf(b *testing.B, sc sim.Scenario) []sample.Sample {
	var buf bytes.Buffer
	if _, err := sim.Generate(sc, &buf, nil); err != nil {
		b.Fatal(err)
	}
	p := parse.NewParser(parse.Options{})
	st := parse.NewStream(parse.StreamOptions{Year: 2026, Location: time.UTC})
	var out []sample.Sample
	sc2 := bufio.NewScanner(&buf)
	for sc2.Scan() {
		line := append([]byte(nil), sc2.Bytes()...)
		var s parse.Record
		if p.Parse(line, &s) == sample.Matched {
			st.Resolve(0, nil, nil, &s)
			out = append(out, s.Sample)
		}
	}
	return out
}

// Target: ≥ 1,000,000 samples/s on one core and 0 allocations per sample in steady state.
func BenchmarkModelObserve(b *testing.B) {
	samples := samplesOf(b, steady(1, 24*time.Hour))
	set := NewSet(Options{})
	for i := range samples { // warm: series exist, fits are warm, buffers allocated
		set.Observe(&samples[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		set.Observe(&samples[i%len(samples)])
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkSetLookup finds the series of samples from four ranks of one unit, in turn, as the
// chatty corpus has them.
func BenchmarkSetLookup(b *testing.B) {
	set := NewSet(Options{})
	var ss [4]sample.Sample
	for i := range ss {
		ss[i] = sample.Sample{Engine: sample.EngineSGLang, Host: []byte("gpu07"), Unit: []byte("python3"),
			Rank: []byte("DP" + string(rune('0'+i)) + " TP" + string(rune('0'+i)))}
		set.lookup(&ss[i])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if set.lookup(&ss[i&3]) == nil {
			b.Fatal("no series")
		}
		i++
	}
}

// stateOf256 is a Set of 256 series, each fed a day of a busy SGLang rank (the same samples
// under 256 hosts): every ring, fit and detector full.
func stateOf256(b *testing.B) *Set {
	samples := samplesOf(b, steady(1, 24*time.Hour))
	set := NewSet(Options{})
	hosts := make([][]byte, 256)
	for i := range hosts {
		hosts[i] = []byte("gpu" + string(rune('A'+i/26%26)) + string(rune('a'+i%26)) + string(rune('0'+i/676)))
	}
	for i := range samples {
		for _, h := range hosts {
			samples[i].Host = h
			set.Observe(&samples[i])
		}
	}
	if set.Len() != 256 {
		b.Fatalf("%d series", set.Len())
	}
	return set
}

// BenchmarkStateSave is what the daemon's feed loop spends on a snapshot of 256 full series
// (the file is written on another goroutine).
func BenchmarkStateSave(b *testing.B) {
	set := stateOf256(b)
	buf := set.AppendState(nil)
	b.ReportAllocs()
	for b.Loop() {
		buf = set.AppendState(buf[:0])
	}
	b.ReportMetric(float64(len(buf)), "bytes")
}

// BenchmarkStateLoad is a restart's load of that snapshot.
func BenchmarkStateLoad(b *testing.B) {
	saved := stateOf256(b).AppendState(nil)
	b.ReportAllocs()
	for b.Loop() {
		if err := NewSet(Options{}).LoadState(saved); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(saved)), "bytes")
}
