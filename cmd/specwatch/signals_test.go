package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/internal/testkit/testproc"
)

// procState polls cond on /proc/PID/<file> until it holds (the process has reached the point
// the test signals it at), failing after a deadline.
func procState(t *testing.T, pid int, file string, cond func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		matches, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/" + file)
		for _, m := range matches {
			if b, err := os.ReadFile(m); err == nil && cond(string(b)) {
				return
			}
		}
		if file != "syscall" { // io and status are per process
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + file); err == nil && cond(string(b)) {
				return
			}
		}
	}
	t.Fatalf("process %d never reached the state the test waits for in %s", pid, file)
}

// TestSignalsEndAnalyze: SIGINT and SIGTERM end analyze within about a second with the shell's
// codes (130, 143), even where it is blocked outside anything a context can cancel: opening a
// FIFO nobody writes, reading an endless input.
func TestSignalsEndAnalyze(t *testing.T) {
	bin := testharness.BuildSpecwatch(t)
	fifo := filepath.Join(t.TempDir(), "engine.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer zero.Close()
	for _, c := range []struct {
		name  string
		args  []string
		stdin *os.File
		sig   syscall.Signal
		wait  func(t *testing.T, pid int)
	}{
		{"SIGTERM while opening a FIFO", []string{"analyze", fifo}, nil, syscall.SIGTERM, func(t *testing.T, pid int) {
			// blocked in openat (257 on x86-64, 56 on arm64) on the FIFO
			procState(t, pid, "syscall", func(s string) bool { return strings.HasPrefix(s, "257 ") || strings.HasPrefix(s, "56 ") })
		}},
		{"SIGINT while reading /dev/zero", []string{"analyze", "-"}, zero, syscall.SIGINT, func(t *testing.T, pid int) {
			procState(t, pid, "io", func(s string) bool { // a few MB read: it is in the endless read
				for _, l := range strings.Split(s, "\n") {
					if v, ok := strings.CutPrefix(l, "rchar: "); ok {
						n, _ := strconv.Atoi(v)
						return n > 4<<20
					}
				}
				return false
			})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, c.args...)
			cmd.Stdin = c.stdin
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			c.wait(t, cmd.Process.Pid)
			sent := time.Now()
			cmd.Process.Signal(c.sig)
			err := cmd.Wait()
			took := time.Since(sent)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(c.sig) {
				t.Fatalf("exit %v after %v, want code %d; stderr %q", err, took, 128+int(c.sig), stderr.String())
			}
			if took > 3*time.Second { // the grace is 1 s; generous for a loaded machine
				t.Errorf("took %v to stop", took)
			}
			t.Logf("%v after the signal: %s", took.Round(time.Millisecond), strings.TrimSpace(stderr.String()))
		})
	}
}

// TestRunReadyThenReload: under Type=notify systemd sends ExecReload's SIGHUP only after the
// daemon said READY=1. Sent the moment it does, the SIGHUP must be applied (it once killed run
// with status 129 when it came within the first milliseconds); the stop says STOPPING=1.
func TestRunReadyThenReload(t *testing.T) {
	bin := testharness.BuildSpecwatch(t)
	for i := range 5 {
		sock := filepath.Join(t.TempDir(), "notify")
		conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "run", "--web.listen-address", "127.0.0.1:0", "--journal.directory", t.TempDir(), "--state.directory", t.TempDir(), "--log.format", "json")
		cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+sock)
		var stderr testproc.SyncBuffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		notified := func(want string) {
			conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			buf := make([]byte, 256)
			for {
				n, err := conn.Read(buf)
				if err != nil {
					t.Fatalf("run %d: no %s from the daemon: %v; stderr %q", i, want, err, stderr.String())
				}
				if strings.Contains(string(buf[:n]), want) {
					return
				}
			}
		}
		notified("READY=1")
		cmd.Process.Signal(syscall.SIGHUP)
		deadline := time.After(30 * time.Second)
		for !strings.Contains(stderr.String(), "configuration reloaded") {
			select {
			case err := <-exited:
				t.Fatalf("run %d ended after a SIGHUP right after READY=1: %v; stderr %q", i, err, stderr.String())
			case <-deadline:
				t.Fatalf("run %d: the reload was not applied; stderr %q", i, stderr.String())
			case <-time.After(10 * time.Millisecond):
			}
		}
		cmd.Process.Signal(syscall.SIGTERM)
		notified("STOPPING=1")
		if err := <-exited; err != nil {
			t.Fatalf("run %d: %v after SIGTERM; stderr %q", i, err, stderr.String())
		}
		conn.Close()
	}
}
