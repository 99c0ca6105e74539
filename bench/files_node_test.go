package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestNodeFiles is one GPU node's pod logs under `run --kubernetes`: 200 containers in the
// kubelet's layout (CRI lines), 20 engines in namespace "inference" writing 50 decode lines/s
// each and 180 others (kube-system, monitoring, istio sidecars…) writing 10 lines/s each,
// filtered out by the preset's include pattern. For SPECWATCH_LIVE_SECS (default 40 s) it
// reports CPU, VmHWM, open descriptors (sampled every second, the maximum), then starts a new
// engine pod and measures how long until its series is on /metrics (the target: 10 s).
//
//	SPECWATCH_BIN=/tmp/specwatch go test -count=1 -run TestNodeFiles -v -timeout 5m ./bench/
func TestNodeFiles(t *testing.T) {
	bin := os.Getenv("SPECWATCH_BIN")
	if bin == "" {
		t.Skip("set SPECWATCH_BIN (bench/run.sh does)")
	}
	secs := 40
	if s := os.Getenv("SPECWATCH_LIVE_SECS"); s != "" {
		secs, _ = strconv.Atoi(s)
	}
	root := filepath.Join(t.TempDir(), "pods")
	type ctr struct {
		w      *os.File
		engine bool
	}
	var ctrs []ctr
	open := func(ns, pod, name string) *os.File {
		d := filepath.Join(root, fmt.Sprintf("%s_%s_%08x-0000-4000-8000-000000000000", ns, pod, len(ctrs)), name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		w, err := os.OpenFile(filepath.Join(d, "0.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	for i := range 20 {
		ctrs = append(ctrs, ctr{open("inference", fmt.Sprintf("sglang-%d", i), "engine"), true})
	}
	others := []string{"kube-system", "monitoring", "istio-system", "default", "logging"}
	for i := range 180 {
		ctrs = append(ctrs, ctr{open(others[i%len(others)], fmt.Sprintf("app-%d", i), "main"), false})
	}
	cfg := filepath.Join(t.TempDir(), "specwatch.yaml")
	if err := os.WriteFile(cfg, []byte("kubernetes:\n  enabled: true\n  root: "+root+"\n  include: {namespaces: [inference]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	cmd := exec.Command(bin, "run", "--config.file", cfg, "--state.directory", t.TempDir(), "--web.listen-address", addr, "--log.format", "json")
	cmd.Stderr, cmd.Stdout = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid, url := cmd.Process.Pid, "http://"+addr
	waitReady(t, url)

	stop := make(chan struct{})
	defer close(stop)
	line := func(c int, n int) []byte {
		ts := time.Now().UTC().Format(time.RFC3339Nano)
		if ctrs[c].engine {
			return fmt.Appendf(nil, "%s stderr F [2026-11-20 09:00:00 TP0] Decode batch, #running-req: 8, #token: %d, token usage: 0.30, accept len: 3.10, accept rate: 0.52, cuda graph: True, gen throughput (token/s): 420.00, #queue-req: 0\n", ts, 20000+n%5000)
		}
		return fmt.Appendf(nil, "%s stdout F level=info msg=\"request served\" status=200 n=%d\n", ts, n)
	}
	go func() { // every 100 ms: 5 lines per engine, 1 per other container
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			for c := range ctrs {
				k := 1
				if ctrs[c].engine {
					k = 5
				}
				for j := range k {
					ctrs[c].w.Write(line(c, n*k+j))
				}
			}
		}
	}()
	time.Sleep(2 * time.Second)
	maxFDs := 0
	c0, t0 := cpuTicks(t, pid), time.Now()
	for end := t0.Add(time.Duration(secs) * time.Second); time.Now().Before(end); time.Sleep(time.Second) {
		maxFDs = max(maxFDs, openFDs(pid))
	}
	c1, t1 := cpuTicks(t, pid), time.Now()
	cpu := float64(c1-c0) / 100 / t1.Sub(t0).Seconds() * 100
	series := regexp.MustCompile(`(?m)^specwatch_samples_total\{[^}]*kind="decode"[^}]*\}`)
	engines := len(series.FindAll(scrape(url), -1))

	// A new engine pod: its first line, then how long until its series is exported.
	w := open("inference", "sglang-new", "engine")
	t2 := time.Now()
	ts := time.Now().UTC().Format(time.RFC3339Nano)
	w.WriteString(ts + " stderr F [2026-11-20 09:00:00 TP0] Decode batch, #running-req: 1, #token: 777, token usage: 0.01, accept len: 3.00, accept rate: 0.40, cuda graph: True, gen throughput (token/s): 60.00, #queue-req: 0\n")
	probe := regexp.MustCompile(`(?m)^specwatch_context_tokens\{[^}]*pod="sglang-new"[^}]*\} 777$`)
	for probe.Find(scrape(url)) == nil {
		if time.Since(t2) > 30*time.Second {
			t.Fatal("the new pod's series never showed on /metrics")
		}
		time.Sleep(20 * time.Millisecond)
	}
	discovery := time.Since(t2)
	hwm, anon := procStatus(t, pid, "VmHWM:"), procStatus(t, pid, "RssAnon:")
	fmt.Printf("NODEFILES containers=200 engines=20 (series with decode samples: %d) lines/s=%d cpu=%.2f%% of one core over %.0f s, VmHWM=%.1f MB, RssAnon=%.1f MB, open fds max=%d, new pod on /metrics after %.2f s\n",
		engines, 20*50+180*10, cpu, t1.Sub(t0).Seconds(), float64(hwm)/1024, float64(anon)/1024, maxFDs, discovery.Seconds())
}
