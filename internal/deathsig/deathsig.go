// Package deathsig starts child processes that die with this one.
package deathsig

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// Start starts cmd so that the kernel SIGKILLs it when this process dies, even by SIGKILL
// (a test timeout skips every cleanup; an OOM kill skips the daemon's). Linux sends Pdeathsig
// when the *thread* that forked the child exits, and the Go runtime ends a thread whenever a
// goroutine exits locked to it (the sd_journal owner, testjournal's spawner): a Prometheus
// forked from such a thread died mid-test in CI. Forking from one thread locked for the life
// of the process makes the signal mean "the parent is gone".
func Start(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	forkOnce.Do(func() {
		forkReq = make(chan forkCall)
		go func() {
			runtime.LockOSThread() // never unlocked, and this goroutine never returns
			for c := range forkReq {
				c.err <- c.cmd.Start()
			}
		}()
	})
	errc := make(chan error, 1)
	forkReq <- forkCall{cmd, errc}
	return <-errc
}

type forkCall struct {
	cmd *exec.Cmd
	err chan error
}

var (
	forkOnce sync.Once
	forkReq  chan forkCall
)
