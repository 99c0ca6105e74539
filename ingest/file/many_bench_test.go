package file

import (
	"context"
	"os"
	"runtime/pprof"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
)

// BenchmarkManyFilesIdleRealClock is BenchmarkManyFilesIdleCPU on the real clock: 10,000
// one-line files read once, then the Source left idle (Next(e, time.Second) in a loop, nothing
// written, Options.Now and Wait left nil) and its CPU measured over two windows of wall time:
//
//   - cpu-%-of-core: the first window, right after the last line was read. Every file gave a
//     byte less than 30 s ago (restAfter), so no file rests: each scan stats them all.
//   - rested-cpu-%-of-core: a window starting 35 s after the last line, once every file has
//     been quiet past restAfter: the steady state of idle files, which
//     BenchmarkManyFilesIdleCPU reaches at once by putting the Source's clock a minute ahead.
//
// CPU is the process's user+sys time (getrusage) over the window's wall time. Each window runs
// under a pprof label, so that a -cpuprofile of the whole run can be narrowed to one:
//
//	go test -run '^$' -bench 'BenchmarkManyFilesIdleRealClock' -benchtime=1x -cpuprofile /tmp/idle.prof ./ingest/file/
//	go tool pprof -tagfocus=window=first -top -cum /tmp/idle.prof   # or window=rested
//
// SPECWATCH_IDLE_SECS sets the windows' length (10 s; longer gives the profile more samples).
// The whole run takes about 35 s plus one window, plus a few seconds to create and read.
func BenchmarkManyFilesIdleRealClock(b *testing.B) {
	const n = 10_000
	window := 10 * time.Second
	if v := os.Getenv("SPECWATCH_IDLE_SECS"); v != "" {
		secs, err := strconv.Atoi(v)
		if err != nil || secs <= 0 {
			b.Fatalf("SPECWATCH_IDLE_SECS=%q: want a positive number of seconds", v)
		}
		window = time.Duration(secs) * time.Second
	}
	// restAfter (30 s) plus a margin: by then every file rests. A literal rather than the
	// constant, so that this file keeps compiling while listing.go changes.
	const settled = 35 * time.Second

	line := []byte("an idle engine's only line\n")
	dir := manyFiles(b, n, line)
	for b.Loop() {
		src, store := newManySource(b, dir, nil)
		readAll(b, src, store, n, line)
		lastLine := time.Now()
		var e ingest.Entry

		// idle calls Next until the wall clock reaches until; a line is a failure.
		idle := func(until time.Time) {
			for time.Now().Before(until) {
				ok, err := src.Next(&e, time.Second)
				if err != nil {
					b.Fatal(err)
				}
				if ok {
					b.Fatalf("a line from an idle file: %q", e.Message)
				}
			}
		}
		// measure runs idle for window under the label window=name and returns the CPU spent
		// in that time, as a percentage of one core.
		measure := func(name string) float64 {
			var pct float64
			pprof.Do(context.Background(), pprof.Labels("window", name), func(context.Context) {
				var r0, r1 syscall.Rusage
				if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r0); err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				idle(start.Add(window))
				if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r1); err != nil {
					b.Fatal(err)
				}
				wall := time.Since(start)
				cpu := time.Duration(r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano())
				pct = 100 * cpu.Seconds() / wall.Seconds()
			})
			return pct
		}

		first := measure("first")
		pprof.Do(context.Background(), pprof.Labels("window", "settling"), func(context.Context) {
			idle(lastLine.Add(settled))
		})
		rested := measure("rested")
		b.ReportMetric(first, "cpu-%-of-core")
		b.ReportMetric(rested, "rested-cpu-%-of-core")
		b.ReportMetric(window.Seconds(), "window-s")
		if st := src.Stats(); st.Files != n {
			b.Fatalf("%d files followed, want %d", st.Files, n)
		}
		src.Close()
	}
}
