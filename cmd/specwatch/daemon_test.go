package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
	"github.com/specwatch/specwatch/sim"
)

// proc is a running `specwatch run` with its log captured and its address parsed from it.
type proc struct {
	t    testing.TB
	cmd  *exec.Cmd
	mu   sync.Mutex
	log  bytes.Buffer
	addr chan string
	done chan error
}

func startRun(t testing.TB, args ...string) *proc {
	t.Helper()
	return startProc(t, append([]string{"run", "--web.listen-address", "127.0.0.1:0", "--log.format", "json"}, args...)...)
}

// startProc starts the binary with args; its JSON log must say where it serves.
func startProc(t testing.TB, args ...string) *proc {
	t.Helper()
	bin := testharness.BuildSpecwatch(t)
	p := &proc{t: t, addr: make(chan string, 1), done: make(chan error, 1)}
	p.cmd = exec.Command(bin, args...)
	stderr, _ := p.cmd.StderrPipe()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.log.WriteString(line + "\n")
			p.mu.Unlock()
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && m["message"] == "serving /metrics, /api/v1/report and the status page" {
				p.addr <- m["listen"].(string)
			}
		}
		p.done <- p.cmd.Wait()
	}()
	// The cleanup waits on done (wait puts the exit back) rather than reading the
	// ProcessState that Wait writes.
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		p.wait()
	})
	return p
}

func (p *proc) url(path string) string {
	p.t.Helper()
	select {
	case a := <-p.addr:
		p.addr <- a
		return "http://" + a + path
	case <-time.After(30 * time.Second):
		p.t.Fatalf("daemon did not start serving:\n%s", p.logs())
	}
	return ""
}

// stop kills the process and waits for it.
func (p *proc) stop() {
	p.cmd.Process.Kill()
	p.wait()
}

// wait returns the process's exit, leaving it in done for the next wait and the cleanup.
func (p *proc) wait() error {
	err := <-p.done
	p.done <- err
	return err
}

func (p *proc) logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// eventually polls cond until it holds or the deadline passes (waiting on a real process).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ready reports whether url answers 200 (/-/ready says 503 until the reader is positioned and
// caught up).
func ready(url string) bool {
	resp, err := http.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func get(url string) string {
	resp, err := http.Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// demoJournal builds a journal directory holding the demo scenario.
func demoJournal(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	sc := sim.Demo(1)
	sc.Format = sim.FormatExport
	var buf bytes.Buffer
	if _, err := sim.Generate(sc, &buf, nil); err != nil {
		t.Fatal(err)
	}
	testjournal.BuildFileFromExport(t, dir, &buf)
	return dir
}

func TestRunReloadKeepsRunningConfigOnError(t *testing.T) {
	dir, state := demoJournal(t), t.TempDir()
	cfgPath := filepath.Join(t.TempDir(), "specwatch.yaml")
	write := func(s string) {
		if err := os.WriteFile(cfgPath, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("log:\n  level: info\n")
	p := startRun(t, "--config.file", cfgPath, "--journal.directory", dir, "--journal.since", "2026-11-20", "--state.directory", state)
	eventually(t, "ready", func() bool {
		return get(p.url("/-/ready")) != "" && strings.Contains(get(p.url("/metrics")), `specwatch_lines_total{result="matched"} 5191`)
	})

	write("model:\n  window: lots\n")
	p.cmd.Process.Signal(syscall.SIGHUP)
	eventually(t, "the reload failure in the log", func() bool { return strings.Contains(p.logs(), "model.window") })
	eventually(t, "reload gauge 0", func() bool {
		return strings.Contains(get(p.url("/metrics")), "specwatch_config_last_reload_successful 0")
	})
	if !strings.Contains(get(p.url("/api/v1/report")), `"series"`) {
		t.Fatal("daemon stopped serving after a bad reload")
	}
	// A FIFO as the config (no writer): refused at once; it must not block later reloads.
	os.Remove(cfgPath)
	if err := syscall.Mkfifo(cfgPath, 0o644); err != nil {
		t.Fatal(err)
	}
	p.cmd.Process.Signal(syscall.SIGHUP)
	eventually(t, "the FIFO refused in the log", func() bool { return strings.Contains(p.logs(), "a FIFO") })
	os.Remove(cfgPath)
	write("aliases:\n  acc_len: commit_len\n")
	p.cmd.Process.Signal(syscall.SIGHUP)
	eventually(t, "reload gauge 1", func() bool {
		return strings.Contains(get(p.url("/metrics")), "specwatch_config_last_reload_successful 1")
	})

	// SIGTERM: graceful exit, with the cursor of the last entry saved.
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, p.logs())
	}
	cur, err := os.ReadFile(filepath.Join(state, "journal.cursor"))
	if err != nil || len(cur) == 0 {
		t.Fatalf("no cursor saved: %v", err)
	}
}

// TestRunReloadChangesLogLevel: SIGHUP with log.level debug turns on the debug lines of the
// whole daemon, not only of the reload loop's own logger (the pipeline kept its startup copy).
func TestRunReloadChangesLogLevel(t *testing.T) {
	j := testjournal.Start(t)
	cfgPath := filepath.Join(t.TempDir(), "specwatch.yaml")
	write := func(s string) {
		if err := os.WriteFile(cfgPath, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("log:\n  level: info\n")
	p := startRun(t, "--config.file", cfgPath, "--journal.directory", j.Dir(), "--state.directory", t.TempDir())
	eventually(t, "ready", func() bool { return ready(p.url("/-/ready")) })
	matched := func(n float64) func() bool {
		return func() bool {
			v, _ := testharness.MetricValue(get(p.url("/metrics")), "specwatch_lines_total", `result="matched"`)
			return v == n
		}
	}
	j.Write(unit, "python3", decodeLine(1)) // a new series and a cursor save at level info: no debug line
	j.Sync()
	eventually(t, "the first line applied", matched(1))
	eventually(t, "the new series logged at info", func() bool { return strings.Contains(p.logs(), `"series appeared"`) })
	if strings.Contains(p.logs(), `"level":"debug"`) {
		t.Fatalf("a debug line at level info:\n%s", p.logs())
	}
	write("log:\n  level: debug\n")
	p.cmd.Process.Signal(syscall.SIGHUP)
	eventually(t, "the reload", func() bool { return strings.Contains(p.logs(), "configuration reloaded") })
	j.Write("vllm.service", "python3", decodeLine(2)) // another unit: another series
	j.Sync()
	eventually(t, "the second line applied", matched(2))
	eventually(t, "the pipeline's debug line (its cursor save)", func() bool {
		return strings.Contains(p.logs(), `"level":"debug"`) && strings.Contains(p.logs(), `"saved the journal cursor"`)
	})
}

// TestRunRefusesALockedStateDir: a second daemon on the state directory of a running one
// refuses to start, naming the first one's PID and --state.directory, and the first keeps
// running.
func TestRunRefusesALockedStateDir(t *testing.T) {
	dir, state := demoJournal(t), t.TempDir()
	first := startRun(t, "--journal.directory", dir, "--state.directory", state)
	eventually(t, "the first daemon ready", func() bool { return ready(first.url("/-/ready")) })
	bin := testharness.BuildSpecwatch(t)
	out, err := exec.Command(bin, "run", "--web.listen-address", "127.0.0.1:0", "--journal.directory", dir, "--state.directory", state).CombinedOutput()
	// The PID, and the flag and config key that give the second daemon a directory of its own.
	want := fmt.Sprintf("in use by another specwatch (pid %d): one daemon per state directory (--state.directory, config state_dir)", first.cmd.Process.Pid)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitFailure || !strings.Contains(string(out), want) {
		t.Fatalf("second daemon: %v, output %q; want exit 1 naming %q", err, out, want)
	}
	if !ready(first.url("/-/ready")) {
		t.Fatal("the first daemon stopped answering")
	}
}
