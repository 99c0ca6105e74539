package testjournal

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// reapStale removes what test binaries killed before their cleanup (a test timeout, ^C) left
// behind: socket directories, configuration drop-ins and cgroup slices of namespaces named
// like ours whose journald no longer answers. Their journald and placeholder processes are
// already gone (Pdeathsig). A live instance answers on its varlink socket, so a test running
// in parallel in another package is never touched.
func reapStale() {
	dirs, _ := filepath.Glob("/run/systemd/journal.swtest*")
	for _, run := range dirs {
		ns := strings.TrimPrefix(filepath.Base(run), "journal.")
		if c, err := net.DialTimeout("unix", filepath.Join(run, "io.systemd.journal"), time.Second); err == nil {
			c.Close()
			continue
		}
		if st, err := os.Stat(run); err != nil || time.Since(st.ModTime()) < time.Minute {
			continue // possibly an instance still starting
		}
		os.RemoveAll(run)
		os.RemoveAll("/run/systemd/journald@" + ns + ".conf.d")
		for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified", "/sys/fs/cgroup/systemd"} {
			slice := filepath.Join(root, ns+".slice")
			units, _ := os.ReadDir(slice)
			for _, u := range units {
				if u.IsDir() {
					os.Remove(filepath.Join(slice, u.Name())) // fails, harmlessly, if busy
				}
			}
			os.Remove(slice)
		}
	}
}
