package soak

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// procMem reads a process's memory (kB → bytes) and its open fds and threads from /proc.
type procMem struct {
	RSS, Anon, File int64
	FDs, Threads    int
}

func readProcMem(pid int) (procMem, error) {
	var m procMem
	st, err := testharness.ReadProcStatus(pid)
	if err != nil {
		return m, err
	}
	kB := func(k string) int64 {
		v, _ := strconv.ParseInt(strings.TrimSuffix(st[k], " kB"), 10, 64)
		return v << 10
	}
	m.RSS, m.Anon, m.File = kB("VmRSS"), kB("RssAnon"), kB("RssFile")
	m.Threads, _ = strconv.Atoi(st["Threads"])
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return m, err
	}
	m.FDs = len(fds)
	return m, nil
}

// topMappings lists a process's n largest mappings by resident size: what RSS is made of
// (heap, the binary, libsystemd's journal file windows).
func topMappings(pid, n int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return err.Error()
	}
	type mapping struct {
		name string
		rss  int64
	}
	var ms []mapping
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			name := "[anon]"
			if len(f) >= 6 {
				name = f[5]
			}
			ms = append(ms, mapping{name: name})
		case len(f) >= 2 && f[0] == "Rss:" && len(ms) > 0:
			v, _ := strconv.ParseInt(f[1], 10, 64)
			ms[len(ms)-1].rss = v << 10
		}
	}
	byName := map[string]int64{}
	for _, m := range ms {
		byName[filepath.Base(m.name)] += m.rss
	}
	var out []mapping
	for k, v := range byName {
		out = append(out, mapping{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rss > out[j].rss })
	var sb strings.Builder
	for i := 0; i < len(out) && i < n; i++ {
		fmt.Fprintf(&sb, "%8.1f MB  %s\n", float64(out[i].rss)/(1<<20), out[i].name)
	}
	return sb.String()
}
