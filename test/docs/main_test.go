// Package docs checks that the repository's documentation matches what the program does: every
// markdown link stays inside the repository, every metric /metrics serves is in docs/metrics.md,
// and the report schema in docs/report.md covers a golden `analyze --format json` output.
//
// The tests are black-box on purpose: they build cmd/specwatch and read files, and import no
// package of the project, so that moving packages around never breaks them.
package docs

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	tmpRoot   string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if tmpRoot != "" {
		os.RemoveAll(tmpRoot)
	}
	os.Exit(code)
}

// repoRoot is the module root, two levels up from this package.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !strings.Contains(string(b), "module github.com/specwatch/specwatch") {
		t.Fatalf("%s is not the specwatch module root (go.mod: %v)", root, err)
	}
	return root
}

// specwatch builds cmd/specwatch once per test binary and returns its path.
func specwatch(t testing.TB) string {
	t.Helper()
	root := repoRoot(t)
	buildOnce.Do(func() {
		tmpRoot, buildErr = os.MkdirTemp("", "specwatch-docs-test-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(tmpRoot, "specwatch")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/specwatch")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/specwatch: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// readDoc returns a file of the repository as a string.
func readDoc(t testing.TB, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// daemon is a running specwatch process; stop ends it and waits.
type daemon struct {
	cmd  *exec.Cmd
	done chan error
}

// start runs specwatch with args and returns once lineAddr has found the HTTP address in one
// of the lines it writes to the stream selected by fromStderr, or fails when deadline passes.
func start(t *testing.T, deadline time.Duration, fromStderr bool, lineAddr func(string) string, args ...string) (*daemon, string) {
	t.Helper()
	cmd := exec.Command(specwatch(t), args...)
	pr, pw := io.Pipe()
	if fromStderr {
		cmd.Stderr, cmd.Stdout = pw, io.Discard
	} else {
		cmd.Stdout, cmd.Stderr = pw, os.Stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &daemon{cmd: cmd, done: make(chan error, 1)}
	go func() {
		err := cmd.Wait()
		pw.Close()
		d.done <- err
	}()
	t.Cleanup(d.stop)

	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		found := false
		for sc.Scan() {
			if a := lineAddr(sc.Text()); a != "" && !found {
				found = true
				addrc <- a
			}
		}
		io.Copy(io.Discard, pr) // keep draining so the process never blocks on a full pipe
	}()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case a := <-addrc:
		if _, _, err := net.SplitHostPort(a); err != nil {
			t.Fatalf("specwatch %s: address %q: %v", strings.Join(args, " "), a, err)
		}
		return d, a
	case err := <-d.done:
		d.done <- err
		t.Fatalf("specwatch %s exited before printing its address: %v", strings.Join(args, " "), err)
	case <-timer.C:
		t.Fatalf("specwatch %s printed no address within %s", strings.Join(args, " "), deadline)
	}
	return nil, ""
}

func (d *daemon) stop() {
	select {
	case err := <-d.done:
		d.done <- err
		return
	default:
	}
	d.cmd.Process.Signal(os.Interrupt)
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case err := <-d.done:
		d.done <- err
	case <-timer.C:
		d.cmd.Process.Kill()
		d.done <- <-d.done
	}
}

// get fetches url on loopback with a bounded time.
func get(ctx context.Context, url string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// poll calls try every interval until it reports done, or fails the test at deadline with the
// last reason try gave.
func poll(t *testing.T, deadline, interval time.Duration, what string, try func() (done bool, why string)) {
	t.Helper()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		done, why := try()
		if done {
			return
		}
		select {
		case <-timer.C:
			t.Fatalf("%s: not within %s: %s", what, deadline, why)
		case <-tick.C:
		}
	}
}
