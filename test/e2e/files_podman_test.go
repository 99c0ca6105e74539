//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// TestFilesPodmanRotation follows a real container's CRI log as conmon writes it (Podman's
// k8s-file driver, runc) with --log-opt max-size=50k: conmon replaces the file with a new one
// (a new inode under the name) about every 2 s. 2,000 decode lines at 100 lines/s, about nine
// rotations; every line must be a decode sample, once. (A file that conmon creates and
// replaces between two of specwatch's scans, a second apart, would be missed: with 20k, at
// this rate, the first file lived 0.4 s.)
func TestFilesPodmanRotation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a container for 20 s")
	}
	if os.Geteuid() != 0 {
		t.Skip("podman with runc needs root here")
	}
	podman := testharness.NeedTool(t, "podman", "podman")
	bin := testharness.BuildSpecwatch(t)
	dir := t.TempDir()
	rootfs := filepath.Join(dir, "rootfs")
	must(t, mkdirs(filepath.Join(rootfs, "etc"), filepath.Join(rootfs, "tmp")))
	build := exec.Command("go", "build", "-o", filepath.Join(rootfs, "writer"), "./testdata/slowwriter")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the writer: %v\n%s", err, out)
	}
	log := filepath.Join(dir, "engine.log")
	d := testharness.NewDaemon(t, bin, testharness.FreeAddr(t), filepath.Join(dir, "state"), filepath.Join(dir, "specwatch.log"),
		"--file", log)
	d.Start()
	const lines = 2000
	// Storage of its own, vfs: no overlay mount under /var/lib/containers, which made
	// test/privilege's sandbox setup fail while this ran beside it.
	res := testharness.RunCmd(t, 2*time.Minute, dir, nil, podman, "--runtime", "runc", "--cgroup-manager=cgroupfs",
		"--root", filepath.Join(dir, "storage"), "--runroot", filepath.Join(dir, "run"), "--storage-driver", "vfs", "run", "--rm",
		"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024", "--network", "none",
		"--log-driver", "k8s-file", "--log-opt", "path="+log, "--log-opt", "max-size=50k",
		"--rootfs", rootfs, "/writer", "2000", "100")
	if res.Err != nil {
		t.Skipf("podman cannot run a container here: %v\n%s", res.Err, res.Output())
	}
	fi, err := os.Stat(log)
	must(t, err)
	if fi.Size() > 60<<10 {
		t.Fatalf("the log is %d bytes: conmon did not rotate it", fi.Size())
	}
	deadline := time.Now().Add(20 * time.Second)
	var got float64
	for {
		body, err := d.Metrics()
		must(t, err)
		got, _ = testharness.MetricValue(body, "specwatch_samples_total", `kind="decode"`)
		if got >= lines || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond) // polling a real process
	}
	if got != lines {
		t.Fatalf("%v decode samples, want exactly %d\n%s", got, lines, testharness.Tail(filepath.Join(dir, "specwatch.log"), 2000))
	}
}
