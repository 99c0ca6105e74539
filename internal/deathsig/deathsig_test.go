package deathsig

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

type child struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// startOnEndingThread runs start on a goroutine that locks a thread other than the main one
// (which the runtime never ends) and returns without unlocking it, so the runtime ends that
// thread right after.
func startOnEndingThread(t *testing.T, start func(*exec.Cmd) error) child {
	t.Helper()
	c := child{cmd: exec.Command("sleep", "60"), done: make(chan struct{})}
	errc := make(chan error)
	for started := false; !started; {
		go func() {
			runtime.LockOSThread()
			if syscall.Gettid() == syscall.Getpid() {
				runtime.UnlockOSThread()
				errc <- nil
				return
			}
			started = true
			errc <- start(c.cmd)
		}()
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	go func() { c.cmd.Wait(); close(c.done) }()
	t.Cleanup(func() { c.cmd.Process.Kill(); <-c.done })
	return c
}

func (c child) exitedWithin(d time.Duration) bool {
	select {
	case <-c.done:
		return true
	case <-time.After(d):
		return false
	}
}

// The control shows the hazard: a child with Pdeathsig forked from a thread that then ends is
// killed although its parent lives. A child started by Start survives the same thread's end.
func TestChildOutlivesForkingThread(t *testing.T) {
	control := startOnEndingThread(t, func(c *exec.Cmd) error {
		c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		return c.Start()
	})
	ours := startOnEndingThread(t, Start)
	if !control.exitedWithin(10 * time.Second) {
		t.Fatal("control: a Pdeathsig child outlived the thread that forked it; the hazard this package avoids is gone?")
	}
	if ours.exitedWithin(500 * time.Millisecond) {
		t.Fatalf("a child started by Start died when the thread that asked for it ended: %v", ours.cmd.ProcessState)
	}
}
