// Package testproc runs the external servers the integration tests talk to (Prometheus,
// promtool, VictoriaMetrics, Debian packages that scripts/deps.sh installs) and waits for them,
// for the tests of exporter and web alike.
package testproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// NeedBinary returns the path of an external program the integration tests run, or skips
// loudly naming the Debian package (scripts/deps.sh installs it).
func NeedBinary(t *testing.T, name, debPackage string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("SKIPPED: %s not found: install the Debian package %q (scripts/deps.sh test)", name, debPackage)
	}
	return p
}

// FreePort returns a port that was free a moment ago; callers retry if another process takes
// it before they bind.
func FreePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Proc is an external server started by a test; its output is kept for failure messages.
type Proc struct {
	cmd  *exec.Cmd
	out  *SyncBuffer
	done chan struct{}
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers (a process' stdout and stderr, a
// logger) and a reader.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Start starts bin with args and waits until GET url answers 200, within deadline. It returns
// an error (not a failure) when the process exits first, so that callers can retry on a port
// taken in between.
func Start(t *testing.T, deadline time.Duration, url, bin string, args ...string) (*Proc, error) {
	t.Helper()
	p := &Proc{cmd: exec.Command(bin, args...), out: &SyncBuffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	err := Poll(deadline, func() error {
		select {
		case <-p.done:
			return errExited
		default:
		}
		return Get200(url)
	})
	if err != nil {
		p.Stop()
		return nil, fmt.Errorf("%s did not come up: %w\n%s", bin, err, p.out.String())
	}
	return p, nil
}

var errExited = errors.New("process exited")

// Stop interrupts the process and waits for it (killing it after 10 s).
func (p *Proc) Stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// Get200 fetches url and returns an error unless it answers 200.
func Get200(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}

// Poll calls f every 100 ms until it returns nil or deadline passes (the last error is
// returned); a process that exited stops it at once. Tests use it only to wait for a real
// external process.
func Poll(deadline time.Duration, f func() error) error {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		err := f()
		if err == nil || errors.Is(err, errExited) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-tick.C:
		}
	}
}

// PromResult is one series of an instant query's answer, from Prometheus or VictoriaMetrics.
type PromResult struct {
	Metric    map[string]string `json:"metric"`
	Value     []any             `json:"value"`
	Histogram []any             `json:"histogram"`
}
