package bench

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"testing"
	"time"

	"github.com/specwatch/specwatch/sim"
)

// TestLiveFiles is TestLive through `run --file`: 2,000 lines/s appended to a plain engine log
// (the corpus' unit lines, or a simulated mixed log when SPECWATCH_LIVE_LINES is unset) in
// 10 ms batches, each batch one write(2) as a logger's flush would be. Phase 1 (SPECWATCH_LIVE_SECS,
// default 40 s): CPU % of one core, one /metrics scrape every 15 s; phase 2 (20 s): a probe
// decode line every 250 ms, /metrics polled every 2 ms until it shows. The file is rotated by
// rename every SPECWATCH_LIVE_ROTATE seconds (default 10; 0: never) during both phases, as a
// logger would at this rate. RSS is VmHWM.
//
//	SPECWATCH_BIN=/tmp/specwatch go test -count=1 -run TestLiveFiles -v -timeout 5m ./bench/
func TestLiveFiles(t *testing.T) {
	bin := os.Getenv("SPECWATCH_BIN")
	if bin == "" {
		t.Skip("set SPECWATCH_BIN (bench/run.sh does)")
	}
	secs := 40
	if s := os.Getenv("SPECWATCH_LIVE_SECS"); s != "" {
		secs, _ = strconv.Atoi(s)
	}
	const rate = 2000
	rotate := 10 * time.Second // SPECWATCH_LIVE_ROTATE seconds; 0: never
	if s := os.Getenv("SPECWATCH_LIVE_ROTATE"); s != "" {
		n, _ := strconv.Atoi(s)
		rotate = time.Duration(n) * time.Second
	}
	lines := liveLines(t)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "engine.log")
	w, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	// The lines may be the journal corpus's (SPECWATCH_LIVE_LINES, as bench/run.sh gives them),
	// stamped days ago: with model.expire_after their series would leave /metrics at the first
	// tick and no probe would ever show.
	cfgPath := filepath.Join(dir, "specwatch.yaml")
	if err := os.WriteFile(cfgPath, []byte("model:\n  expire_after: 0s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--config.file", cfgPath, "--file", logPath, "--state.directory", t.TempDir(), "--web.listen-address", addr, "--log.format", "json")
	cmd.Stderr, cmd.Stdout = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid, url := cmd.Process.Pid, "http://"+addr
	waitReady(t, url)

	probes := make(chan []byte)
	stop, sent := make(chan struct{}), make(chan int, 1)
	go func() { // the writer: rate lines/s in 10 ms batches, probes in between, rotation every 10 s
		n, tick := 0, time.NewTicker(10*time.Millisecond)
		defer tick.Stop()
		start, rotated := time.Now(), time.Now()
		var batch []byte
		for {
			select {
			case <-stop:
				sent <- n
				return
			case p := <-probes:
				w.Write(p)
				continue
			case <-tick.C:
			}
			batch = batch[:0]
			for due := int(time.Since(start).Seconds() * rate); n < due; n++ {
				batch = append(append(batch, lines[n%len(lines)]...), '\n')
			}
			w.Write(batch)
			if rotate > 0 && time.Since(rotated) >= rotate {
				w.Close()
				os.Rename(logPath, logPath+".1")
				w, _ = os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
				rotated = time.Now()
			}
		}
	}()
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
	}()
	time.Sleep(2 * time.Second) // settle
	c0, t0 := cpuTicks(t, pid), time.Now()
	for end := t0.Add(time.Duration(secs) * time.Second); time.Now().Before(end); {
		time.Sleep(min(15*time.Second, time.Until(end)))
		scrape(url)
	}
	c1, t1 := cpuTicks(t, pid), time.Now()
	cpu := float64(c1-c0) / 100 / t1.Sub(t0).Seconds() * 100

	var lat []time.Duration
	probe := regexp.MustCompile(`(?m)^specwatch_context_tokens\{[^}]*rank="DP9 TP9"[^}]*\} ([0-9.e+]+)$`)
	for i, end := 1, time.Now().Add(20*time.Second); time.Now().Before(end); i++ {
		v := 1000000 + i
		msg := fmt.Appendf(nil, "[2026-11-20 09:00:00 DP9 TP9] Decode batch, #running-req: 1, #token: %d, token usage: 0.01, accept len: 3.00, accept rate: 0.40, cuda graph: True, gen throughput (token/s): 60.00, #queue-req: 0\n", v)
		w0 := time.Now()
		probes <- msg
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
	hwm, anon := procStatus(t, pid, "VmHWM:"), procStatus(t, pid, "RssAnon:")
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	fmt.Printf("LIVEFILES rotate=%s rate=%d lines/s sent=%d cpu=%.2f%% of one core over %.0f s, VmHWM=%.1f MB, RssAnon=%.1f MB, write->/metrics p50=%.1f ms p99=%.1f ms max=%.1f ms (%d probes)\n",
		rotate, rate, n, cpu, t1.Sub(t0).Seconds(), float64(hwm)/1024, float64(anon)/1024, p(0.5), p(0.99), p(1), len(lat))
}

// liveLines are the corpus' unit lines (SPECWATCH_LIVE_LINES) or a simulated mixed log.
func liveLines(t *testing.T) [][]byte {
	if src := os.Getenv("SPECWATCH_LIVE_LINES"); src != "" {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	}
	var buf bytes.Buffer
	sc := sim.Mixed(11, 50000)
	if _, err := sim.Generate(sc, &buf, nil); err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimRight(buf.Bytes(), "\n"), []byte("\n"))
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitReady(t *testing.T, url string) {
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if r, err := http.Get(url + "/-/ready"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("specwatch run never became ready")
		}
	}
}

// openFDs counts a process's open descriptors.
func openFDs(pid int) int {
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(ents)
}
