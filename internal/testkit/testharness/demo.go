//go:build linux

package testharness

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Demo is a `specwatch demo` process started for a test.
type Demo struct {
	Addr    string    // host:port of its status page, /metrics and report API
	Started time.Time // just before the process was started
	LogPath string    // its stdout and stderr
}

// StartDemo runs `specwatch demo --web.listen-address ADDR args…` on a free loopback port
// and returns once it answers /-/ready (its replay has started). The process is killed at
// cleanup; if the test failed, the end of its log is printed.
func StartDemo(t testing.TB, args ...string) *Demo {
	t.Helper()
	bin := BuildSpecwatch(t)
	d := &Demo{Addr: FreeAddr(t), LogPath: filepath.Join(t.TempDir(), "demo.log")}
	logf, err := os.Create(d.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"demo", "--web.listen-address", d.Addr}, args...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	d.Started = time.Now()
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("specwatch demo log (%s):\n%s", d.LogPath, Tail(d.LogPath, 4000))
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for !readyAt(d.Addr) {
		select {
		case <-exited:
			t.Fatalf("specwatch demo exited at start:\n%s", Tail(d.LogPath, 4000))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("specwatch demo not ready after 60 s:\n%s", Tail(d.LogPath, 4000))
		}
		time.Sleep(50 * time.Millisecond) // polling a real process's readiness
	}
	return d
}
