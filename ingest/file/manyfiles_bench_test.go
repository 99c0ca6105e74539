package file

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
)

// Issue 27's targets for many files, as benchmarks (-benchtime=1x; each iteration is the
// whole measurement): memory after reading 10,000 files of one 1 MB line ≤ 64 MB, and CPU
// with 10,000 idle files ≤ 2 % of a core. bench/run.sh MANY=1 runs both.

func manyFiles(b *testing.B, n int, line []byte) string {
	b.Helper()
	dir := b.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%05d.log", i)), line, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// readAll follows dir/*.log until n lines arrived, each checked to be line without its newline.
func readAll(b *testing.B, src *Source, store *Store, n int, line []byte) {
	b.Helper()
	var e ingest.Entry
	want := line[:len(line)-1]
	for got := 0; got < n; {
		ok, err := src.Next(&e, time.Second)
		if err != nil {
			b.Fatal(err)
		}
		if !ok {
			continue
		}
		if !bytes.Equal(e.Message, want) {
			b.Fatalf("line %d: %d bytes, want %d", got, len(e.Message), len(want))
		}
		store.Mark(e.Cursor)
		got++
	}
}

func newManySource(b *testing.B, dir string, now func() time.Time) (*Source, *Store) {
	state := filepath.Join(b.TempDir(), "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		b.Fatal(err)
	}
	store := NewStore(state)
	return New(Options{Globs: []string{filepath.Join(dir, "*.log")}, Store: store, Now: now}), store
}

// vmKB reads a field of /proc/self/status in kB.
func vmKB(field string) float64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field+":" {
			v, _ := strconv.ParseFloat(f[1], 64)
			return v
		}
	}
	return 0
}

func BenchmarkManyFilesMemory(b *testing.B) {
	const n = 10_000
	line := append(bytes.Repeat([]byte("m"), 1_000_000), '\n')
	dir := manyFiles(b, n, line)
	for b.Loop() {
		src, store := newManySource(b, dir, nil)
		readAll(b, src, store, n, line)
		runtime.GC()
		runtime.GC()
		debug.FreeOSMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/1e6, "heap-inuse-MB")
		b.ReportMetric(vmKB("VmRSS")/1e3, "rss-MB")
		b.ReportMetric(vmKB("VmHWM")/1e3, "peak-rss-MB")
		if st := src.Stats(); st.Files != n {
			b.Fatalf("%d files followed, want %d", st.Files, n)
		}
		src.Close()
	}
}

// BenchmarkManyFilesIdleCPU: 10,000 files read once, then idle for 10 s of wall time, the
// follower's clock a minute ahead so that the files are as quiet as idle files are.
func BenchmarkManyFilesIdleCPU(b *testing.B) {
	const n = 10_000
	line := []byte("an idle engine's only line\n")
	dir := manyFiles(b, n, line)
	for b.Loop() {
		var ahead time.Duration
		src, store := newManySource(b, dir, func() time.Time { return time.Now().Add(ahead) })
		readAll(b, src, store, n, line)
		ahead = time.Minute
		var r0, r1 syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
		start := time.Now()
		var e ingest.Entry
		for time.Since(start) < 10*time.Second {
			if ok, _ := src.Next(&e, time.Second); ok {
				b.Fatal("a line from an idle file")
			}
		}
		syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
		cpu := time.Duration(r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano())
		b.ReportMetric(100*cpu.Seconds()/time.Since(start).Seconds(), "cpu-%-of-core")
		src.Close()
	}
}
