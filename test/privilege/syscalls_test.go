package privilege

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// syscallSet expands a systemd system-call group (@system-service) into names, recursively.
func syscallSet(t *testing.T, sa, group string, seen map[string]bool) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	if seen[group] {
		return out
	}
	seen[group] = true
	r := testharness.RunCmd(t, time.Minute, "", nil, sa, "syscall-filter", "--no-pager", group)
	if r.Err != nil || r.Code != 0 {
		t.Fatalf("systemd-analyze syscall-filter %s: %v %s", group, r.Err, r.Output())
	}
	for i, line := range strings.Split(r.Stdout, "\n") {
		f := strings.TrimSpace(line)
		if i == 0 || f == "" || strings.HasPrefix(f, "#") {
			continue
		}
		if strings.HasPrefix(f, "@") {
			for k := range syscallSet(t, sa, f, seen) {
				out[k] = true
			}
			continue
		}
		out[f] = true
	}
	return out
}

// unitSyscallFilter reads the unit's SystemCallFilter= lines: an allow list followed by
// ~deny lists, as written in specwatch.service.
func unitSyscallFilter(t *testing.T, sa string) (allowed map[string]bool) {
	t.Helper()
	allowed = map[string]bool{}
	for _, line := range strings.Split(string(testharness.ReadUnit(t)), "\n") {
		v, ok := strings.CutPrefix(line, "SystemCallFilter=")
		if !ok {
			continue
		}
		deny := strings.HasPrefix(v, "~")
		for _, g := range strings.Fields(strings.TrimPrefix(v, "~")) {
			set := map[string]bool{g: true}
			if strings.HasPrefix(g, "@") {
				set = syscallSet(t, sa, g, map[string]bool{})
			}
			for k := range set {
				if deny {
					delete(allowed, k)
				} else {
					allowed[k] = true
				}
			}
		}
	}
	if len(allowed) == 0 {
		t.Fatal("no SystemCallFilter= allow list in the unit")
	}
	return allowed
}

var straceCall = regexp.MustCompile(`^(?:\d+\s+)?([a-z0-9_]+)\(`)

// TestUnitSyscallFilterAllowsSpecwatch runs specwatch under strace — short commands, and the
// daemon itself (`run` on an empty journal directory with both journal backends, and `demo`,
// which replays simulated data through the model and the exporter) while its endpoints are
// fetched — and checks that every system call made is in the unit's SystemCallFilter= (a
// denied call would fail with EPERM in production).
func TestUnitSyscallFilterAllowsSpecwatch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds specwatch")
	}
	t.Parallel()
	sa := testharness.NeedTool(t, "systemd-analyze", "systemd")
	strace := testharness.NeedTool(t, "strace", "strace")
	allowed := unitSyscallFilter(t, sa)
	bin := testharness.BuildSpecwatch(t)
	root := testharness.RepoRoot(t)
	used := map[string]bool{}
	collect := func(trace string) {
		f, err := os.Open(trace)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if m := straceCall.FindStringSubmatch(sc.Text()); m != nil {
				used[m[1]] = true
			}
		}
	}
	for _, args := range [][]string{
		{"version"},
		{"check-config", filepath.Join(root, "deploy", "specwatch.yaml")},
		{"analyze", "--format", "json", filepath.Join(root, "cmd", "specwatch", "testdata", "multi.log")},
	} {
		trace := filepath.Join(t.TempDir(), "trace")
		r := testharness.RunCmd(t, 2*time.Minute, "", nil, strace, append([]string{"-f", "-qq", "-o", trace, bin}, args...)...)
		if r.Err != nil || r.Code != 0 {
			if strings.Contains(r.Output(), "ptrace") {
				t.Skipf("SKIP: strace cannot trace here: %s", r.Output())
			}
			t.Fatalf("strace specwatch %v: exit %d %v\n%s", args, r.Code, r.Err, r.Output())
		}
		collect(trace)
	}
	for _, backend := range []string{"sdjournal", "journalctl"} {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "journal"), 0o755)
		os.Mkdir(filepath.Join(dir, "state"), 0o700)
		addr := testharness.FreeAddr(t)
		trace := traceDaemon(t, strace, addr, "/-/ready", "", bin, "run", "--journal.directory", filepath.Join(dir, "journal"),
			"--journal.backend", backend, "--state.directory", filepath.Join(dir, "state"), "--web.listen-address", addr, "--log.format", "json")
		collect(trace)
	}
	addr := testharness.FreeAddr(t)
	// The demo replays for ever: wait for series in /metrics rather than for /-/ready.
	collect(traceDaemon(t, strace, addr, "/metrics", "specwatch_commit_length_tokens{", bin, "demo", "--web.listen-address", addr, "--speed", "0"))

	var denied, all []string
	for s := range used {
		all = append(all, s)
		if !allowed[s] {
			denied = append(denied, s)
		}
	}
	sort.Strings(all)
	sort.Strings(denied)
	t.Logf("%d system calls used, all checked against the unit's filter: %s", len(all), strings.Join(all, " "))
	if len(denied) > 0 {
		t.Errorf("system calls outside the unit's SystemCallFilter=: %s", strings.Join(denied, " "))
	}
}

// traceDaemon runs a specwatch daemon command under strace, waits until GET readyPath at addr
// answers 200 with readyText in the body,
// fetches its endpoints, stops it with SIGTERM (as systemd does) and returns the trace.
func traceDaemon(t *testing.T, strace, addr, readyPath, readyText, bin string, args ...string) string {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "trace")
	var out bytes.Buffer
	cmd := exec.Command(strace, append([]string{"-f", "-qq", "-o", trace, bin}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	client := http.Client{Timeout: 5 * time.Second}
	ready := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && !ready; time.Sleep(200 * time.Millisecond) {
		if resp, err := client.Get("http://" + addr + readyPath); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			ready = resp.StatusCode == http.StatusOK && strings.Contains(string(b), readyText)
		}
	}
	if !ready {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("specwatch %v not ready at %s:\n%s", args, addr, out.String())
	}
	for _, path := range []string{"/metrics", "/api/v1/report", "/", "/-/healthy"} {
		resp, err := client.Get("http://" + addr + path)
		if err != nil {
			t.Errorf("GET %s: %v", path, err)
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", path, resp.Status)
		}
	}
	// SIGTERM to specwatch itself (strace's child), as systemd stops it.
	child := 0
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", cmd.Process.Pid, cmd.Process.Pid)); err == nil {
		fmt.Sscan(string(b), &child)
	}
	if child == 0 {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("cannot find specwatch's pid under strace")
	}
	syscall.Kill(child, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Errorf("specwatch %v did not stop on SIGTERM within 30 s:\n%s", args, out.String())
	}
	return trace
}
