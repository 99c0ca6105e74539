package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testjournal"
	"github.com/specwatch/specwatch/sim"
)

// httpLoadScenario is 256 busy SGLang ranks, 64 on each of 4 hosts (the default series cap):
// with sim 10 min, a status page of about 4.8 MB.
func httpLoadScenario(d time.Duration) sim.Scenario {
	var svcs []sim.Service
	for h := range 4 {
		ranks := make([]string, 64)
		for i := range ranks {
			ranks[i] = fmt.Sprintf("DP%d TP%d", i, i)
		}
		svcs = append(svcs, sim.Service{Host: fmt.Sprintf("gpu%02d", h+1), Unit: "sglang.service", Engine: sim.SGLang,
			Ranks: ranks, Prefix: sim.PrefixMillis, Step: sim.StepModel{A: 0.030, B: 2e-6}, KVTokens: 200000,
			Workload: sim.Workload{Concurrency: 8, PromptMin: 200, PromptMax: 16000, OutputMin: 100, OutputMax: 4000},
			Acceptance: sim.Acceptance{DraftLen: 7, Phases: []sim.Phase{
				{Name: "easy", Mean: 6.5, Weight: 0.3}, {Name: "hard", Mean: 2.7, Weight: 0.7}}}})
	}
	return sim.Scenario{Name: "http-load", Seed: 1, Start: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC),
		Duration: d, Format: sim.FormatExport, Services: svcs}
}

// TestHTTPLoad (issue 21, item 15): `specwatch run` follows a journal file of 256 SGLang ranks
// (httpLoadScenario, built by systemd-journal-remote) on loopback; once it has read all of it,
// 100 clients loop on / and 100 on /api/v1/report, each request after the last, for
// SPECWATCH_HTTP_LOAD_SECS seconds, while a prober (a process of its own) scrapes /metrics every
// 100 ms (5 s timeout).
// Targets: VmHWM ≤ 100 MB, /metrics p99 ≤ 1 s, every request answered (200) or refused with
// 503. SPECWATCH_HTTP_LOAD_SIM sets the simulated duration (10m; longer fills the plots'
// history: a bigger page), SPECWATCH_HTTP_LOAD_JOURNAL keeps the journal file in a directory
// (and reuses one found there: it must be of the same SIM), SPECWATCH_LIVE_ARGS adds arguments
// to `specwatch run`.
//
//	go build -o /tmp/specwatch ./cmd/specwatch
//	SPECWATCH_BIN=/tmp/specwatch SPECWATCH_HTTP_LOAD_SECS=60 go test -run TestHTTPLoad -v -timeout 10m ./bench/
func TestHTTPLoad(t *testing.T) {
	bin, secsEnv := os.Getenv("SPECWATCH_BIN"), os.Getenv("SPECWATCH_HTTP_LOAD_SECS")
	if bin == "" || secsEnv == "" {
		t.Skip("set SPECWATCH_BIN and SPECWATCH_HTTP_LOAD_SECS")
	}
	secs, err := strconv.Atoi(secsEnv)
	if err != nil || secs <= 0 || secs > 600 {
		t.Fatalf("SPECWATCH_HTTP_LOAD_SECS=%q: want 1..600", secsEnv)
	}
	simDur := 10 * time.Minute
	if s := os.Getenv("SPECWATCH_HTTP_LOAD_SIM"); s != "" {
		if simDur, err = time.ParseDuration(s); err != nil {
			t.Fatal(err)
		}
	}
	const clients = 100
	// The clients ask for gzip, as browsers do, and read the compressed bytes: the load generator
	// shares the machine, and decompressing 100 pages at a time would take its CPU from the
	// daemon. SPECWATCH_HTTP_LOAD_GZIP=0 makes them ask for identity (the daemon decompresses).
	gz := os.Getenv("SPECWATCH_HTTP_LOAD_GZIP") != "0"

	// the journal file, kept in SPECWATCH_HTTP_LOAD_JOURNAL if set (and reused from there)
	sc := httpLoadScenario(simDur)
	jdir := os.Getenv("SPECWATCH_HTTP_LOAD_JOURNAL")
	if jdir == "" {
		jdir = t.TempDir()
	}
	sum, err := sim.Generate(sc, io.Discard, nil) // the counts, cheaply
	if err != nil {
		t.Fatal(err)
	}
	if old, _ := filepath.Glob(filepath.Join(jdir, "*.journal")); len(old) == 0 {
		if err := os.MkdirAll(jdir, 0o755); err != nil {
			t.Fatal(err)
		}
		pr, pw := io.Pipe()
		go func() {
			w := bufio.NewWriterSize(pw, 1<<20)
			_, err := sim.Generate(sc, w, nil)
			if err == nil {
				err = w.Flush()
			}
			pw.CloseWithError(err)
		}()
		testjournal.BuildFileFromExport(t, jdir, pr)
	}
	t.Logf("journal %s: %d entries, %d engine lines, simulated %v", jdir, sum.Lines, sum.EngineLines, simDur)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	// The journal's stamps are the simulation's (days ago): with model.expire_after the series
	// would leave /metrics at the first tick, and the load would be on an empty exposition.
	cfgPath := filepath.Join(t.TempDir(), "specwatch.yaml")
	if err := os.WriteFile(cfgPath, []byte("model:\n  expire_after: 0s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "--config.file", cfgPath, "--journal.directory", jdir, "--journal.unit", "sglang.service", "--state.directory", t.TempDir(),
		"--since", sc.Start.Add(-time.Minute).Format(time.RFC3339), "--web.listen-address", addr, "--log.format", "json"}
	cmd := exec.Command(bin, append(args, strings.Fields(os.Getenv("SPECWATCH_LIVE_ARGS"))...)...)
	var stderr bytes.Buffer
	cmd.Stderr, cmd.Stdout = &stderr, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("specwatch's log (last 2000 bytes): %s", stderr.Bytes()[max(0, stderr.Len()-2000):])
		}
	}()
	pid, url := cmd.Process.Pid, "http://"+addr

	// caught up: 256 series and every engine line counted
	var series int
	var lines int64
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("specwatch never caught up: %d series, %d lines of %d entries", series, lines, sum.Lines)
		}
		r, err := http.Get(url + "/api/v1/report")
		if err != nil {
			continue
		}
		var rep struct {
			Input  struct{ Lines int64 }
			Series []json.RawMessage
		}
		err = json.NewDecoder(r.Body).Decode(&rep)
		r.Body.Close()
		if err == nil {
			series, lines = len(rep.Series), rep.Input.Lines
			if series == 256 && lines >= int64(sum.Lines) {
				break
			}
		}
	}
	pageBytes, reportBytes := bodySize(t, url+"/"), bodySize(t, url+"/api/v1/report")
	hwm0 := procStatusKB(t, pid, "VmHWM:")
	t.Logf("caught up: %d series, %d lines; page %.1f MB, report %.1f MB; VmHWM before the load %.1f MB",
		series, lines, float64(pageBytes)/1e6, float64(reportBytes)/1e6, float64(hwm0)/1024)

	// the load
	type tally struct {
		ok, busy, other, failed int
		otherCodes              []int
		errs                    []string
	}
	var mu sync.Mutex
	tallies := map[string]*tally{"/": {}, "/api/v1/report": {}}
	tr := &http.Transport{MaxIdleConnsPerHost: 2 * clients, MaxConnsPerHost: 2 * clients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	end := time.Now().Add(time.Duration(secs) * time.Second)
	var wg sync.WaitGroup
	for _, path := range []string{"/", "/api/v1/report"} {
		for range clients {
			wg.Go(func() {
				var local tally
				req, err := http.NewRequest("GET", url+path, nil)
				if err != nil {
					panic(err)
				}
				if gz {
					// as browsers do; set by hand, the client neither decompresses nor checks
					req.Header.Set("Accept-Encoding", "gzip")
				}
				for time.Now().Before(end) {
					r, err := client.Do(req)
					if err == nil {
						_, err = io.Copy(io.Discard, r.Body)
						r.Body.Close()
					}
					switch {
					case err != nil:
						local.failed++
						if len(local.errs) < 3 {
							local.errs = append(local.errs, err.Error())
						}
					case r.StatusCode == 200:
						local.ok++
					case r.StatusCode == 503:
						local.busy++
					default:
						local.other++
						local.otherCodes = append(local.otherCodes, r.StatusCode)
					}
				}
				mu.Lock()
				g := tallies[path]
				g.ok, g.busy, g.other, g.failed = g.ok+local.ok, g.busy+local.busy, g.other+local.other, g.failed+local.failed
				g.otherCodes = append(g.otherCodes, local.otherCodes...)
				g.errs = append(g.errs, local.errs...)
				mu.Unlock()
			})
		}
	}
	// the prober, in a process of its own (so that the load generator's goroutines do not
	// delay it), and the RSS sampler
	probeCmd := exec.Command(os.Args[0], "-test.run=^TestHTTPLoadProber$", "-test.v")
	probeCmd.Env = append(os.Environ(), "SPECWATCH_HTTP_PROBE_URL="+url+"/metrics",
		"SPECWATCH_HTTP_PROBE_UNTIL="+strconv.FormatInt(end.UnixNano(), 10))
	probeOut, err := probeCmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := probeCmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lat []time.Duration
	var probeFail []string
	probed := make(chan struct{})
	go func() {
		defer close(probed)
		sc := bufio.NewScanner(probeOut)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "probe ok "); ok {
				d, _ := time.ParseDuration(v)
				lat = append(lat, d)
			} else if v, ok := strings.CutPrefix(sc.Text(), "probe failed "); ok {
				probeFail = append(probeFail, v)
			}
		}
	}()
	var maxRSS, maxAnon int64
	tick := time.NewTicker(100 * time.Millisecond)
	for time.Now().Before(end) {
		<-tick.C
		maxRSS = max(maxRSS, procStatusKB(t, pid, "VmRSS:"))
		maxAnon = max(maxAnon, procStatusKB(t, pid, "RssAnon:"))
	}
	tick.Stop()
	<-probed
	if err := probeCmd.Wait(); err != nil {
		t.Errorf("prober: %v", err)
	}
	wg.Wait()
	hwm := procStatusKB(t, pid, "VmHWM:")
	if err := cmd.Process.Signal(os.Interrupt); err == nil {
		cmd.Wait()
	}

	slices.Sort(lat)
	q := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\n## HTTP load: %d clients on / and %d on /api/v1/report for %d s, 256 series (page %.1f MB, report %.1f MB), gzip %v\n\n",
		clients, clients, secs, float64(pageBytes)/1e6, float64(reportBytes)/1e6, gz)
	fmt.Printf("load average at the end: %s\n", bytes.TrimSpace(load))
	fmt.Println("| path | 200 | 503 | other | failed | answered/s |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: |")
	for _, path := range []string{"/", "/api/v1/report"} {
		g := tallies[path]
		fmt.Printf("| `%s` | %d | %d | %d | %d | %.1f |\n", path, g.ok, g.busy, g.other, g.failed, float64(g.ok)/float64(secs))
		if g.other > 0 || g.failed > 0 {
			t.Errorf("%s: %d answered otherwise (%v), %d failed (%v); want 200 or 503 only", path, g.other, g.otherCodes[:min(5, len(g.otherCodes))], g.failed, g.errs)
		}
		if g.ok == 0 {
			t.Errorf("%s: nothing answered 200", path)
		}
	}
	fmt.Printf("\n/metrics probes: %d ok, %d failed; p50 %v, p99 %v, max %v\n", len(lat), len(probeFail),
		q(0.5).Round(time.Millisecond), q(0.99).Round(time.Millisecond), q(1).Round(time.Millisecond))
	fmt.Printf("memory: VmHWM %.1f MB (before the load %.1f MB); peak sampled VmRSS %.1f MB, RssAnon %.1f MB\n\n",
		float64(hwm)/1024, float64(hwm0)/1024, float64(maxRSS)/1024, float64(maxAnon)/1024)
	if len(probeFail) > 0 {
		t.Errorf("%d /metrics probes failed: %v", len(probeFail), probeFail[:min(5, len(probeFail))])
	}
	if p := q(0.99); p > time.Second {
		t.Errorf("/metrics p99 %v, want ≤ 1 s", p)
	}
	if hwm > 100*1024 {
		t.Errorf("VmHWM %.1f MB, want ≤ 100 MB", float64(hwm)/1024)
	}
}

// bodySize is the length of a 200 response's body.
func bodySize(t *testing.T, url string) int64 {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	n, err := io.Copy(io.Discard, r.Body)
	if err != nil || r.StatusCode != 200 {
		t.Fatalf("%s: %d, %v", url, r.StatusCode, err)
	}
	return n
}

// procStatusKB is a field of /proc/PID/status in kB.
func procStatusKB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(field))
	if i < 0 {
		t.Fatalf("no %s in /proc/%d/status", field, pid)
	}
	n, _ := strconv.ParseInt(strings.Fields(string(b[i+len(field):]))[0], 10, 64)
	return n
}

// TestHTTPLoadProber is TestHTTPLoad's /metrics prober, run by it in a process of its own: a
// scrape every 100 ms (5 s timeout) until SPECWATCH_HTTP_PROBE_UNTIL (Unix ns), one line per
// scrape on stdout.
func TestHTTPLoadProber(t *testing.T) {
	url, untilEnv := os.Getenv("SPECWATCH_HTTP_PROBE_URL"), os.Getenv("SPECWATCH_HTTP_PROBE_UNTIL")
	if url == "" || untilEnv == "" {
		t.Skip("run by TestHTTPLoad")
	}
	ns, err := strconv.ParseInt(untilEnv, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	until := time.Unix(0, ns)
	if time.Until(until) > 11*time.Minute {
		t.Fatalf("SPECWATCH_HTTP_PROBE_UNTIL is %v away", time.Until(until))
	}
	probe := &http.Client{Transport: &http.Transport{}, Timeout: 5 * time.Second}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for ; time.Now().Before(until); <-tick.C {
		t0 := time.Now()
		r, err := probe.Get(url)
		if err == nil {
			_, err = io.Copy(io.Discard, r.Body)
			r.Body.Close()
			if err == nil && r.StatusCode != 200 {
				err = fmt.Errorf("status %d", r.StatusCode)
			}
		}
		if err != nil {
			fmt.Printf("probe failed %v\n", err)
			continue
		}
		fmt.Printf("probe ok %v\n", time.Since(t0))
	}
}
