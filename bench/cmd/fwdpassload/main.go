// Command fwdpassload measures what the forward-pass source costs: it runs the engines'
// publisher (ingest/fwdpass/testdata/publisher.py, Debian's python3-zmq and python3-msgpack) with
// 4 data-parallel ranks at 200 iterations a second each, and measures
//
//  1. the source in this process, its samples discarded: CPU (utime + stime of the process over
//     the window, /proc/self/stat) and the resident set it adds (VmRSS before New, VmRSS and
//     VmHWM at the end), and the messages received and lost by sequence number;
//
//  2. with -bin, `specwatch run` on an empty journal directory without and with the 4 ranks as
//     --forward-pass.endpoint: the whole daemon's CPU and VmRSS / VmHWM, the samples' path
//     through the pipeline and the model included.
//
//     go build -o /tmp/specwatch ./cmd/specwatch && go run ./bench/cmd/fwdpassload -bin /tmp/specwatch
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/specwatch/specwatch/bench/internal/procstat"
	"github.com/specwatch/specwatch/ingest/fwdpass"
	"github.com/specwatch/specwatch/sample"
)

func main() {
	bin := flag.String("bin", "", "the specwatch binary (empty: the in-process measurement only)")
	python := flag.String("python", "/usr/bin/python3", "a python3 with zmq and msgpack")
	ranks := flag.Int("ranks", 4, "data-parallel ranks")
	rate := flag.Int("rate", 200, "iterations per second per rank")
	warm := flag.Duration("warm", 5*time.Second, "time before measuring")
	measure := flag.Duration("measure", 30*time.Second, "measured window")
	profile := flag.String("cpuprofile", "", "write the in-process window's CPU profile here")
	poll := flag.Duration("poll", 0, "the source's Poll (0: its default)")
	flag.Parse()
	base := freePort(*ranks)
	ep := fmt.Sprintf("tcp://127.0.0.1:%d", base)
	stop := publish(*python, ep, *ranks, *rate)
	defer stop()

	rss0 := status(os.Getpid(), "VmRSS:")
	var n atomic.Int64
	eps := []fwdpass.Endpoint{{Engine: sample.EngineVLLM, Base: ep, Ranks: seq(*ranks)}}
	s, err := fwdpass.New(fwdpass.Options{Endpoints: eps, Sink: counter{&n}, Poll: *poll})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	time.Sleep(*warm)
	runtime.GC()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
	}
	t0, c0, n0 := time.Now(), cpuTicks(os.Getpid()), n.Load()
	time.Sleep(*measure)
	t1, c1, n1 := time.Now(), cpuTicks(os.Getpid()), n.Load()
	pprof.StopCPUProfile()
	rss, hwm := status(os.Getpid(), "VmRSS:"), status(os.Getpid(), "VmHWM:")
	cancel()
	<-done
	var lost, beats uint64
	for _, st := range s.Stats() {
		lost += st.Lost
		beats += st.Heartbeats
	}
	secs := t1.Sub(t0).Seconds()
	fmt.Printf("source, in process: %d ranks × %d/s: %d samples in %.0f s (%.0f/s), %d lost, %d heartbeats; CPU %.3f %% of a core; VmRSS %.1f MB before New, %.1f MB after (+%.1f MB), VmHWM %.1f MB\n",
		*ranks, *rate, n1-n0, secs, float64(n1-n0)/secs, lost, beats, 100*float64(c1-c0)/procstat.HZ/secs, rss0/1024, rss/1024, (rss-rss0)/1024, hwm/1024)

	if *bin == "" {
		return
	}
	for _, with := range []bool{false, true} {
		var args []string
		if with {
			args = []string{"--forward-pass.endpoint", "vllm=" + ep, "--forward-pass.ranks", fmt.Sprintf("0-%d", *ranks-1)}
		}
		cpu, rss, hwm, err := procstat.Daemon(*bin, args, *warm, *measure)
		if err != nil {
			log.Fatal(err)
		}
		n := 0
		if with {
			n = *ranks
		}
		fmt.Printf("specwatch run, forward-pass ranks %d: CPU %.3f %% of a core, VmRSS %.1f MB, VmHWM %.1f MB\n", n, cpu, rss/1024, hwm/1024)
	}
}

type counter struct{ n *atomic.Int64 }

func (c counter) ApplySample(sample.Result, *sample.Sample) { c.n.Add(1) }

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// publish runs the publisher for as long as the measurements take.
func publish(python, ep string, ranks, rate int) (stop func()) {
	_, self, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(self), "..", "..", "..", "ingest", "fwdpass", "testdata", "publisher.py")
	cmd := exec.Command(python, script, "--endpoint", ep, "--ranks", strconv.Itoa(ranks), "--rate", strconv.Itoa(rate), "--mixed-every", "20")
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	if l, _ := bufio.NewReader(out).ReadString('\n'); l != "ready\n" {
		log.Fatalf("publisher: %q", l)
	}
	go io.Copy(io.Discard, out)
	fmt.Fprintln(in, "burst 100000000")
	return func() { cmd.Process.Kill(); cmd.Wait() }
}

func freePort(n int) int {
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		base := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		ok := true
		for i := 1; i < n && ok; i++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+i))
			ok = err == nil
			if ok {
				l.Close()
			}
		}
		if ok {
			return base
		}
	}
}

func cpuTicks(pid int) int64 {
	t, err := procstat.Ticks(pid)
	if err != nil {
		log.Fatal(err)
	}
	return t
}

func status(pid int, key string) float64 {
	kb, err := procstat.KB(pid, key)
	if err != nil {
		log.Fatal(err)
	}
	return kb
}
