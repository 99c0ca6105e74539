package testjournal

import (
	"os/exec"
	"runtime"
)

// spawner starts child processes from one goroutine locked to its OS thread for the whole
// life of the Journal. Children use Pdeathsig so that they die with the test binary even when
// it is killed (a test timeout skips cleanups); but Linux sends that signal when the *thread*
// that forked the child exits, and the Go runtime ends threads whenever a goroutine exits
// while locked to one (a reader that called LockOSThread and hit t.Fatal, say). Forking from
// a thread that lives exactly as long as the Journal makes the signal mean "the test is over".
type spawner struct {
	req  chan spawnReq
	done chan struct{}
}

type spawnReq struct {
	cmd *exec.Cmd
	err chan error
}

func newSpawner() *spawner {
	s := &spawner{req: make(chan spawnReq), done: make(chan struct{})}
	go func() {
		runtime.LockOSThread()
		// Never unlocked: when this goroutine returns the thread exits too, which is the
		// moment Pdeathsig should fire for anything still alive.
		for r := range s.req {
			r.err <- r.cmd.Start()
		}
		close(s.done)
	}()
	return s
}

// start runs cmd.Start on the spawner's thread.
func (s *spawner) start(cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	s.req <- spawnReq{cmd, errc}
	return <-errc
}

// stop ends the spawner; call it after every child has been stopped and waited for.
func (s *spawner) stop() {
	close(s.req)
	<-s.done
}
