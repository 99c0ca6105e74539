package deploy

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// soakDaemon supervises `specwatch run` the way systemd's Restart=always would: one process at
// a time on a fixed address (so Prometheus keeps one target), logs appended to one file, and a
// record of every incarnation's starting cursor.
type soakDaemon struct {
	t        *testing.T
	bin      string
	args     []string
	addr     string
	stateDir string
	logPath  string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	pid  int
	up   atomic.Bool // serving: between ready and a signal (a storm's failures outside are expected)
}

func newSoakDaemon(t *testing.T, bin, addr, stateDir, logPath string, args ...string) *soakDaemon {
	d := &soakDaemon{t: t, bin: bin, addr: addr, stateDir: stateDir, logPath: logPath, args: args}
	t.Cleanup(func() { d.signal(syscall.SIGKILL); d.wait() })
	return d
}

// start runs a new incarnation and waits until it answers /-/ready (positioned and caught up).
func (d *soakDaemon) start() {
	d.t.Helper()
	logf, err := os.OpenFile(d.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		d.t.Fatal(err)
	}
	cmd := exec.Command(d.bin, append([]string{"run", "--listen", d.addr, "--state-dir", d.stateDir, "--log-format", "json"}, d.args...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		d.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(done) }()
	d.mu.Lock()
	d.cmd, d.done, d.pid = cmd, done, cmd.Process.Pid
	d.mu.Unlock()
	deadline := time.Now().Add(120 * time.Second)
	for !d.ready() {
		select {
		case <-done:
			d.t.Fatalf("specwatch exited at start: %s\n%s", cmd.ProcessState, tail(d.logPath, 4000))
		default:
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("specwatch not ready after 120 s\n%s", tail(d.logPath, 4000))
		}
		time.Sleep(50 * time.Millisecond) // polling a real process's readiness
	}
	d.up.Store(true)
}

func (d *soakDaemon) ready() bool {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + d.addr + "/-/ready")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func (d *soakDaemon) signal(s syscall.Signal) {
	d.up.Store(false)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cmd != nil && d.cmd.ProcessState == nil {
		d.cmd.Process.Signal(s)
	}
}

func (d *soakDaemon) wait() {
	d.mu.Lock()
	done := d.done
	d.mu.Unlock()
	if done != nil {
		<-done
	}
}

func (d *soakDaemon) PID() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pid
}

// cursor is the state directory's saved cursor ("" when none).
func (d *soakDaemon) cursor() string {
	b, _ := os.ReadFile(filepath.Join(d.stateDir, "journal.cursor"))
	return strings.TrimSpace(string(b))
}

// metrics scrapes /metrics, retrying while a scrape storm has the exporter shedding scrapes
// (503: web.MaxScrapesInFlight) for up to 30 s.
func (d *soakDaemon) metrics() (string, error) {
	c := http.Client{Timeout: 10 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := c.Get("http://" + d.addr + "/metrics")
		if err != nil {
			return "", err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusOK:
			return string(b), err
		case resp.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline):
			return "", fmt.Errorf("/metrics: %s", resp.Status)
		}
		time.Sleep(20 * time.Millisecond) // shed by a storm: try again
	}
}

var expoLine = regexp.MustCompile(`(?m)^([a-z_:]+)(\{[^}]*\})? ([0-9.e+-]+|NaN)$`)

// metricValue is the value of the first sample of name whose labels contain match.
func metricValue(body, name, match string) (float64, bool) {
	for _, m := range expoLine.FindAllStringSubmatch(body, -1) {
		if m[1] == name && strings.Contains(m[2], match) {
			v, err := strconv.ParseFloat(m[3], 64)
			return v, err == nil
		}
	}
	return 0, false
}

// procMem reads a process's memory (kB → bytes) and its open fds and threads from /proc.
type procMem struct {
	RSS, Anon, File int64
	FDs, Threads    int
}

func readProcMem(pid int) (procMem, error) {
	var m procMem
	st, err := readProcStatus(pid)
	if err != nil {
		return m, err
	}
	kB := func(k string) int64 {
		v, _ := strconv.ParseInt(strings.TrimSuffix(st[k], " kB"), 10, 64)
		return v << 10
	}
	m.RSS, m.Anon, m.File = kB("VmRSS"), kB("RssAnon"), kB("RssFile")
	m.Threads, _ = strconv.Atoi(st["Threads"])
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return m, err
	}
	m.FDs = len(fds)
	return m, nil
}

// readProcStatus reads /proc/PID/status into its fields ("VmRSS" → "1234 kB").
func readProcStatus(pid int) (map[string]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m, nil
}

// tail is the end of a file, for failure messages.
func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// topMappings lists a process's n largest mappings by resident size: what RSS is made of
// (heap, the binary, libsystemd's journal file windows).
func topMappings(pid, n int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return err.Error()
	}
	type mapping struct {
		name string
		rss  int64
	}
	var ms []mapping
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			name := "[anon]"
			if len(f) >= 6 {
				name = f[5]
			}
			ms = append(ms, mapping{name: name})
		case len(f) >= 2 && f[0] == "Rss:" && len(ms) > 0:
			v, _ := strconv.ParseInt(f[1], 10, 64)
			ms[len(ms)-1].rss = v << 10
		}
	}
	byName := map[string]int64{}
	for _, m := range ms {
		byName[filepath.Base(m.name)] += m.rss
	}
	var out []mapping
	for k, v := range byName {
		out = append(out, mapping{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rss > out[j].rss })
	var sb strings.Builder
	for i := 0; i < len(out) && i < n; i++ {
		fmt.Fprintf(&sb, "%8.1f MB  %s\n", float64(out[i].rss)/(1<<20), out[i].name)
	}
	return sb.String()
}
