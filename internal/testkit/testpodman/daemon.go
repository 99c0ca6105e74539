package testpodman

import (
	"bytes"
	"os/exec"
	"sync"
	"time"
)

// Container is a container started by Podman.Start that runs until the test stops it or ends.
type Container struct {
	p      *Podman
	name   string
	cmd    *exec.Cmd
	exited chan struct{}
	mu     sync.Mutex // guards output, which podman writes from its own goroutines
	output bytes.Buffer
}

// Start starts r in the background (r.JournalSockets is not supported here) and stops it when
// the test ends.
func (p *Podman) Start(r Run) *Container {
	p.tb.Helper()
	c := &Container{p: p, name: r.Name, exited: make(chan struct{})}
	c.cmd = exec.Command(p.bin, append(append([]string{}, baseArgs...), r.args()...)...)
	c.cmd.Stdout, c.cmd.Stderr = (*lockedWriter)(c), (*lockedWriter)(c)
	if err := c.cmd.Start(); err != nil {
		p.tb.Fatalf("testpodman: podman run %s: %v", r.Name, err)
	}
	go func() { c.cmd.Wait(); close(c.exited) }()
	p.tb.Cleanup(c.Stop)
	return c
}

// Exited is closed when the container's podman process has ended.
func (c *Container) Exited() <-chan struct{} { return c.exited }

// Output is what the container (and podman) printed so far.
func (c *Container) Output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.output.String()
}

// Stop stops the container (SIGTERM, then SIGKILL after 10 s) and waits for podman to end.
func (c *Container) Stop() {
	select {
	case <-c.exited:
		return
	default:
	}
	c.p.podman(time.Minute, nil, "stop", "--time", "10", c.name)
	select {
	case <-c.exited:
	case <-time.After(time.Minute):
		c.cmd.Process.Kill()
		<-c.exited
	}
}

type lockedWriter Container

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.output.Write(b)
}
