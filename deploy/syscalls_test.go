package deploy

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// syscallSet expands a systemd system-call group (@system-service) into names, recursively.
func syscallSet(t *testing.T, sa, group string, seen map[string]bool) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	if seen[group] {
		return out
	}
	seen[group] = true
	r := runCmd(t, time.Minute, "", nil, sa, "syscall-filter", "--no-pager", group)
	if r.err != nil || r.code != 0 {
		t.Fatalf("systemd-analyze syscall-filter %s: %v %s", group, r.err, r.output())
	}
	for i, line := range strings.Split(r.stdout, "\n") {
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
	for _, line := range strings.Split(string(readUnit(t)), "\n") {
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

// TestUnitSyscallFilterAllowsSpecwatch runs specwatch commands under strace and checks that
// every system call they make is in the unit's SystemCallFilter= (a denied call would fail
// with EPERM in production). The daemon itself (`run`) joins this list in the end-to-end test.
func TestUnitSyscallFilterAllowsSpecwatch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds specwatch")
	}
	t.Parallel()
	sa := needTool(t, "systemd-analyze", "systemd")
	strace := needTool(t, "strace", "strace")
	allowed := unitSyscallFilter(t, sa)
	bin := buildSpecwatch(t)
	root := repoRoot(t)
	used := map[string]bool{}
	for _, args := range [][]string{
		{"version"},
		{"check-config", filepath.Join(root, "deploy", "specwatch.yaml")},
		{"analyze", "--format", "json", filepath.Join(root, "cmd", "specwatch", "testdata", "multi.log")},
	} {
		trace := filepath.Join(t.TempDir(), "trace")
		r := runCmd(t, 2*time.Minute, "", nil, strace, append([]string{"-f", "-qq", "-o", trace, bin}, args...)...)
		if r.err != nil || r.code != 0 {
			if strings.Contains(r.output(), "ptrace") {
				t.Skipf("SKIP: strace cannot trace here: %s", r.output())
			}
			t.Fatalf("strace specwatch %v: exit %d %v\n%s", args, r.code, r.err, r.output())
		}
		f, err := os.Open(trace)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if m := straceCall.FindStringSubmatch(sc.Text()); m != nil {
				used[m[1]] = true
			}
		}
		f.Close()
	}
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
