package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// TestLive: a private journald receives 2,000 lines/s (the sglang.service part of the corpus,
// -o cat, replayed in order) while `specwatch run` follows it. Phase 1 (SPECWATCH_LIVE_SECS,
// default 40 s): CPU % of one core from /proc/PID/stat utime+stime deltas, one /metrics scrape
// every 15 s as Prometheus would. Phase 2 (20 s, same load): every 250 ms an extra decode line
// with a unique #token on rank "DP9 TP9" is written and /metrics polled every 2 ms until it
// shows: write → /metrics latency. RSS is VmHWM at the end. SPECWATCH_LIVE_ARGS adds
// arguments to `specwatch run` (e.g. "--journal.backend sdjournal").
//
//	SPECWATCH_BIN=/tmp/specwatch-bench/specwatch SPECWATCH_LIVE_LINES=/tmp/specwatch-bench/unit.txt \
//	    go test -run 'TestLive$' -v -timeout 5m ./bench/
func TestLive(t *testing.T) {
	bin, src := os.Getenv("SPECWATCH_BIN"), os.Getenv("SPECWATCH_LIVE_LINES")
	if bin == "" || src == "" {
		t.Skip("set SPECWATCH_BIN and SPECWATCH_LIVE_LINES (bench/run.sh does)")
	}
	secs := 40
	if s := os.Getenv("SPECWATCH_LIVE_SECS"); s != "" {
		secs, _ = strconv.Atoi(s)
	}
	const unit, rate = "sglang.service", 2000
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))

	j := testjournal.Start(t)
	j.RequireUnits()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	args := []string{"run", "--journal.directory", j.Dir(), "--journal.unit", unit, "--state.directory", t.TempDir(),
		"--web.listen-address", addr, "--log.format", "json"}
	cmd := exec.Command(bin, append(args, strings.Fields(os.Getenv("SPECWATCH_LIVE_ARGS"))...)...)
	cmd.Stderr, cmd.Stdout = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	stop := make(chan struct{})
	sent := make(chan int, 1)
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
	}()
	pid := cmd.Process.Pid
	url := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if r, err := http.Get(url + "/-/ready"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("specwatch run never became ready")
		}
	}

	// the load: rate lines/s in 10 ms ticks, from its own goroutine
	go func() {
		n, tick := 0, time.NewTicker(10*time.Millisecond)
		defer tick.Stop()
		start := time.Now()
		for {
			select {
			case <-stop:
				sent <- n
				return
			case <-tick.C:
			}
			due := int(time.Since(start).Seconds() * rate)
			for ; n < due; n++ {
				if err := j.Send(unit, "python3", lines[n%len(lines)]); err != nil {
					t.Error(err)
					<-stop
					sent <- n
					return
				}
			}
		}
	}()

	// peak anonymous RSS (heap, stacks), sampled every 100 ms; VmHWM also counts mapped journal files
	var maxAnon int64
	rssDone := make(chan struct{})
	go func() {
		defer close(rssDone)
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
				if i := bytes.Index(b, []byte("RssAnon:")); i >= 0 {
					f := strings.Fields(string(b[i+8:]))
					if n, err := strconv.ParseInt(f[0], 10, 64); err == nil && n > maxAnon {
						maxAnon = n
					}
				}
			}
		}
	}()
	time.Sleep(2 * time.Second) // settle
	c0, t0 := cpuTicks(t, pid), time.Now()
	for end := t0.Add(time.Duration(secs) * time.Second); time.Now().Before(end); {
		time.Sleep(min(15*time.Second, time.Until(end)))
		scrape(url)
	}
	c1, t1 := cpuTicks(t, pid), time.Now()
	cpu := float64(c1-c0) / 100 / t1.Sub(t0).Seconds() * 100 // USER_HZ = 100

	// phase 2: latency
	var lat []time.Duration
	probe := regexp.MustCompile(`(?m)^specwatch_context_tokens\{[^}]*rank="DP9 TP9"[^}]*\} ([0-9.e+]+)$`)
	for i, end := 1, time.Now().Add(20*time.Second); time.Now().Before(end); i++ {
		v := 1000000 + i
		msg := fmt.Appendf(nil, "[2026-11-20 09:00:00 DP9 TP9] Decode batch, #running-req: 1, #token: %d, token usage: 0.01, accept len: 3.00, accept rate: 0.40, cuda graph: True, gen throughput (token/s): 60.00, #queue-req: 0", v)
		w0 := time.Now()
		if err := j.Send(unit, "python3", msg); err != nil {
			t.Fatal(err)
		}
		for {
			if m := probe.FindSubmatch(scrape(url)); m != nil && parseFloat(m[1]) == float64(v) {
				break
			}
			if time.Since(w0) > 5*time.Second {
				t.Fatalf("probe %d never showed on /metrics", v)
			}
			time.Sleep(2 * time.Millisecond)
		}
		lat = append(lat, time.Since(w0))
		time.Sleep(250*time.Millisecond - time.Since(w0)%(250*time.Millisecond))
	}
	close(stop)
	n := <-sent
	<-rssDone
	hwm, anon, file := procStatus(t, pid, "VmHWM:"), procStatus(t, pid, "RssAnon:"), procStatus(t, pid, "RssFile:")
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	fmt.Printf("LIVE rate=%d lines/s sent=%d cpu=%.2f%% of one core over %.0f s, VmHWM=%.1f MB, max RssAnon=%.1f MB (at the end RssAnon=%.1f MB RssFile=%.1f MB: the binary, and the journal files libsystemd maps), write->/metrics p50=%.1f ms p99=%.1f ms max=%.1f ms (%d probes)\n",
		rate, n, cpu, t1.Sub(t0).Seconds(), float64(hwm)/1024, float64(maxAnon)/1024, float64(anon)/1024, float64(file)/1024, p(0.5), p(0.99), p(1), len(lat))
}

func parseFloat(b []byte) float64 {
	f, _ := strconv.ParseFloat(string(b), 64)
	return f
}

func scrape(url string) []byte {
	r, err := http.Get(url + "/metrics")
	if err != nil {
		return nil
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return b
}

// cpuTicks is utime+stime of pid in clock ticks (/proc/PID/stat fields 14 and 15).
func cpuTicks(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// procStatus is a kB figure of /proc/PID/status (VmHWM: peak RSS, RssAnon, RssFile).
func procStatus(t *testing.T, pid int, key string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), key); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
