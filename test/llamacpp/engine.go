//go:build linux

// Package llamacpp runs a real llama.cpp llama-server doing speculative decoding, drives a load
// through its HTTP API, records the engine's own truth per request (its response timings and
// counters) and checks what specwatch reads from the engine's output against that truth.
//
// The engine is Debian sid's llama.cpp in a chroot and the models are made locally
// (scripts/llamacpp-engine.sh, mkmodels.py): no model hub, no Python index. It needs root.
// When the engine cannot be prepared the tests skip, saying why; SPECWATCH_REQUIRE_ENGINE=1
// (the README's test command) makes that a failure.
package llamacpp

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/deathsig"
	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// Env is a prepared engine: the chroot holding llama-server and the models in it.
type Env struct {
	Root    string // the chroot
	Models  string // the models' directory, as seen inside the chroot
	Version string // llama-server --version
}

var (
	prepOnce sync.Once
	prepEnv  *Env
	prepErr  error
)

// Prepare runs scripts/llamacpp-engine.sh once per test binary (a warm cache takes a second)
// and returns the engine, or skips (fails under SPECWATCH_REQUIRE_ENGINE=1) when it cannot.
func Prepare(t testing.TB) *Env {
	t.Helper()
	prepOnce.Do(func() {
		if os.Geteuid() != 0 {
			prepErr = fmt.Errorf("needs root to run the engine's chroot")
			return
		}
		script := filepath.Join(testharness.RepoRoot(t), "scripts", "llamacpp-engine.sh")
		r := testharness.RunCmd(t, 15*time.Minute, "", nil, script)
		if r.Err != nil || r.Code != 0 {
			prepErr = fmt.Errorf("%s: exit %d %v\n%s", script, r.Code, r.Err, tail(r.Stderr, 2000))
			return
		}
		e := &Env{}
		for _, l := range strings.Split(r.Stdout, "\n") {
			k, v, _ := strings.Cut(l, "=")
			switch k {
			case "root":
				e.Root = v
			case "models":
				e.Models = v
			case "version":
				e.Version = v
			}
		}
		if e.Root == "" || e.Models == "" {
			prepErr = fmt.Errorf("%s printed no root or models:\n%s", script, r.Stdout)
			return
		}
		prepEnv = e
	})
	if prepErr != nil {
		if os.Getenv("SPECWATCH_REQUIRE_ENGINE") != "" {
			t.Fatalf("the engine is required here (SPECWATCH_REQUIRE_ENGINE) but: %v", prepErr)
		}
		t.Skipf("no engine: %v", prepErr)
	}
	return prepEnv
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// ServerOptions say how to run one llama-server.
type ServerOptions struct {
	Addr  string   // host:port to listen on ("": a free loopback port)
	Draft string   // a draft model's file name in Models ("" for none)
	Ctx   int      // -c, the context of all slots together (default 16384)
	Args  []string // more of the engine's flags (--spec-type, -lv, --log-jsonl, -np …)
	// Line, when set, receives every line the engine prints, as it prints it (the harness
	// forwards them to a private journald as a unit's output).
	Line func(line []byte)
}

// Server is one running llama-server.
type Server struct {
	URL     string
	LogPath string    // everything it printed, stdout and stderr, as an operator's redirect would
	Started time.Time // just before the process was started
	cmd     *exec.Cmd
	done    chan struct{}
}

// Start runs llama-server on a free loopback port with the target model and waits until it
// answers /health. Its output goes to a file (and to opts.Line); it is stopped at cleanup.
func (e *Env) Start(t testing.TB, logPath string, opts ServerOptions) *Server {
	t.Helper()
	addr := opts.Addr
	if addr == "" {
		addr = testharness.FreeAddr(t)
	}
	host, port, _ := strings.Cut(addr, ":")
	// One core is left to journald, the daemons and the test: with as many threads as cores,
	// ggml's spinning thread pool made some requests' steps 70 % slower than their neighbours'.
	threads := strconv.Itoa(max(1, runtime.NumCPU()-1))
	args := []string{"-m", e.Models + "/target.gguf", "--host", host, "--port", port, "-t", threads, "-c", strconv.Itoa(cmp.Or(opts.Ctx, 16384)), "--metrics"}
	if opts.Draft != "" {
		// -td 1: the draft's own thread, as the 2-core machine needs
		args = append(args, "-md", e.Models+"/"+opts.Draft, "-td", "1")
	}
	args = append(args, opts.Args...)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	cmd := exec.Command("/usr/bin/llama-server", args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: e.Root}
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8"}
	cmd.Stdout, cmd.Stderr = pw, pw
	s := &Server{URL: "http://" + addr, LogPath: logPath, cmd: cmd, done: make(chan struct{})}
	s.Started = time.Now()
	if err := deathsig.Start(cmd); err != nil {
		t.Fatalf("llama-server in %s: %v", e.Root, err)
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			logf.Write(append(line, '\n'))
			if opts.Line != nil && len(bytes.TrimSpace(line)) > 0 {
				opts.Line(bytes.Clone(line))
			}
		}
		io.Copy(io.Discard, pr)
	}()
	go func() {
		cmd.Wait()
		pw.Close()
		<-copied
		logf.Close()
		close(s.done)
	}()
	t.Cleanup(s.Stop)
	deadline := time.Now().Add(60 * time.Second)
	for {
		r, err := http.Get(s.URL + "/health")
		if err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return s
			}
		}
		select {
		case <-s.done:
			t.Fatalf("llama-server exited before it was healthy; its output:\n%s", readTail(logPath))
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("llama-server not healthy after 60 s; its output:\n%s", readTail(logPath))
		}
	}
}

// Stop ends the server (SIGTERM, then SIGKILL after 10 s) and waits until all its output is
// written.
func (s *Server) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

func readTail(path string) string {
	b, _ := os.ReadFile(path)
	return tail(string(b), 4000)
}
