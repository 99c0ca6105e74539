//go:build linux

package testharness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Daemon supervises `specwatch run` the way systemd's Restart=always would: one process at
// a time on a fixed address (so Prometheus keeps one target; port 0: a new one each time), logs
// appended to one file, and a
// record of every incarnation's starting cursor.
type Daemon struct {
	t        testing.TB
	bin      string
	args     []string
	listen   string // as given: a port of 0 picks a new one for every incarnation
	addr     string // where the running incarnation serves
	stateDir string
	logPath  string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	pid  int
	up   atomic.Bool // serving: between ready and a signal (a storm's failures outside are expected)
}

// NewDaemon supervises bin (`run --web.listen-address addr --state.directory stateDir --log.format json args…`)
// logging to logPath; the process is killed at cleanup. Start runs the first incarnation.
func NewDaemon(t testing.TB, bin, addr, stateDir, logPath string, args ...string) *Daemon {
	d := &Daemon{t: t, bin: bin, listen: addr, addr: addr, stateDir: stateDir, logPath: logPath, args: args}
	t.Cleanup(func() { d.Signal(syscall.SIGKILL); d.Wait() })
	return d
}

// Start runs a new incarnation and waits until it answers /-/ready (positioned and caught up).
func (d *Daemon) Start() {
	d.t.Helper()
	logf, err := os.OpenFile(d.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		d.t.Fatal(err)
	}
	logStart, _ := logf.Seek(0, io.SeekEnd)
	cmd := exec.Command(d.bin, append([]string{"run", "--web.listen-address", d.listen, "--state.directory", d.stateDir, "--log.format", "json"}, d.args...)...)
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
	addr := ""
	for !d.ready(logStart, &addr) {
		select {
		case <-done:
			d.t.Fatalf("specwatch exited at start: %s\n%s", cmd.ProcessState, Tail(d.logPath, 4000))
		default:
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("specwatch not ready after 120 s\n%s", Tail(d.logPath, 4000))
		}
		time.Sleep(50 * time.Millisecond) // polling a real process's readiness
	}
	d.up.Store(true)
}

// ready: this incarnation logged that it serves (so the address is its own: with other test
// processes on the machine, a port freed by a kill can be taken by another daemon, which
// would answer /-/ready and /metrics in its place), and it answers /-/ready there. *addr is
// that address once found, so that the log is read only until then.
func (d *Daemon) ready(logStart int64, addr *string) bool {
	if *addr == "" {
		a, ok := servingAddress(d.logPath, logStart)
		if !ok {
			return false
		}
		*addr = a
		d.mu.Lock()
		d.addr = a
		d.mu.Unlock()
	}
	return readyAt(*addr)
}

// readyAt: the server at addr answers /-/ready with 200.
func readyAt(addr string) bool {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + addr + "/-/ready")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Signal sends s to the running incarnation, if any.
func (d *Daemon) Signal(s syscall.Signal) {
	d.up.Store(false)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cmd != nil && d.cmd.ProcessState == nil {
		d.cmd.Process.Signal(s)
	}
}

// Wait returns when the last incarnation has exited.
func (d *Daemon) Wait() {
	d.mu.Lock()
	done := d.done
	d.mu.Unlock()
	if done != nil {
		<-done
	}
}

// PID is the last incarnation's process id.
func (d *Daemon) PID() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pid
}

// Addr is the address it listens on.
func (d *Daemon) Addr() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.addr
}

// servingAddress finds the address of the first "serving …" line logged at or after offset.
func servingAddress(path string, offset int64) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return "", false
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var l struct {
			Message string `json:"message"`
			Address string `json:"listen"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil && strings.HasPrefix(l.Message, "serving") && l.Address != "" {
			return l.Address, true
		}
	}
	return "", false
}

// Up says whether it is serving: between ready and a signal.
func (d *Daemon) Up() bool { return d.up.Load() }

// Cursor is the state directory's saved cursor ("" when none).
func (d *Daemon) Cursor() string {
	b, _ := os.ReadFile(filepath.Join(d.stateDir, "journal.cursor"))
	return strings.TrimSpace(string(b))
}

// Metrics scrapes /metrics, retrying while a scrape storm has the exporter shedding scrapes
// (503: web.MaxScrapesInFlight) for up to 30 s.
func (d *Daemon) Metrics() (string, error) {
	c := http.Client{Timeout: 10 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := c.Get("http://" + d.Addr() + "/metrics")
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

// ExpoLine matches one sample of the text exposition format: name, {labels}, value.
var ExpoLine = regexp.MustCompile(`(?m)^([a-z_:]+)(\{[^}]*\})? ([0-9.e+-]+|NaN)$`)

// MetricValue is the value of the first sample of name whose labels contain match.
func MetricValue(body, name, match string) (float64, bool) {
	for _, m := range ExpoLine.FindAllStringSubmatch(body, -1) {
		if m[1] == name && strings.Contains(m[2], match) {
			v, err := strconv.ParseFloat(m[3], 64)
			return v, err == nil
		}
	}
	return 0, false
}

// ReadProcStatus reads /proc/PID/status into its fields ("VmRSS" → "1234 kB").
func ReadProcStatus(pid int) (map[string]string, error) {
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

// Tail is the end of a file, for failure messages.
func Tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
