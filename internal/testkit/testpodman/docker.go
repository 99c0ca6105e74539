package testpodman

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/deathsig"
)

// Where Debian's docker.io installs the client and the daemon: named in full, as another
// program called docker may come first in PATH.
const (
	dockerBin  = "/usr/bin/docker"
	dockerdBin = "/usr/sbin/dockerd"
)

// Docker is a private Debian docker.io daemon (dockerd with its own containerd and runc) for
// one test: its data root, socket and containers live in the test's temporary directory, and
// it runs in a mount namespace of its own, so its mounts vanish with it. With a journald
// socket directory given, that directory is /run/systemd/journal in the namespace: the
// journald log driver (dockerd itself calls sd_journal_send) writes to that journald.
//
// Its methods call tb.Fatal on failure and belong to the test goroutine.
type Docker struct {
	tb     testing.TB
	root   string
	sock   string
	cmd    *exec.Cmd
	exited chan struct{}
}

// StartDocker starts dockerd and waits (at most a minute) until it answers. journalSockets
// may be empty.
func StartDocker(tb testing.TB, journalSockets string) *Docker {
	tb.Helper()
	if os.Geteuid() != 0 {
		skip(tb, "needs root to run dockerd")
	}
	for _, bin := range []string{dockerBin, dockerdBin, "containerd", "runc"} {
		if _, err := exec.LookPath(bin); err != nil {
			skip(tb, "%s is not installed (scripts/deps.sh installs docker.io): %v", bin, err)
		}
	}
	// A short root: the daemon's and containerd's unix sockets live under it (108 bytes).
	root, err := os.MkdirTemp("", "swdocker")
	if err != nil {
		tb.Fatalf("testpodman: %v", err)
	}
	d := &Docker{tb: tb, root: root, sock: filepath.Join(root, "docker.sock"), exited: make(chan struct{})}
	args := []string{"--data-root", filepath.Join(root, "data"), "--exec-root", filepath.Join(root, "exec"),
		"--pidfile", filepath.Join(root, "docker.pid"), "-H", "unix://" + d.sock,
		"--iptables=false", "--ip6tables=false", "--bridge=none", "--log-level=warn"}
	script := `exec "$@"`
	if journalSockets != "" {
		if err := os.MkdirAll("/run/systemd/journal", 0o755); err != nil {
			tb.Fatalf("testpodman: %v", err)
		}
		script = `mount --bind "$1" /run/systemd/journal && shift && exec "$@"`
	}
	shArgs := []string{"-c", script, "sh"}
	if journalSockets != "" {
		shArgs = append(shArgs, journalSockets)
	}
	d.cmd = exec.Command("/bin/sh", append(append(shArgs, dockerdBin), args...)...)
	log, err := os.Create(filepath.Join(root, "dockerd.log"))
	if err != nil {
		tb.Fatalf("testpodman: %v", err)
	}
	defer log.Close()
	d.cmd.Stdout, d.cmd.Stderr = log, log
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	if err := deathsig.Start(d.cmd); err != nil {
		skip(tb, "dockerd does not start here: %v", err)
	}
	go func() { d.cmd.Wait(); close(d.exited) }()
	tb.Cleanup(d.stop)
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := d.docker(10*time.Second, nil, "version", "--format", "{{.Server.Version}}"); err == nil {
			return d
		}
		select {
		case <-d.exited:
			skip(tb, "dockerd exited at start: %s", tail(filepath.Join(root, "dockerd.log")))
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("testpodman: dockerd not answering after a minute: %s", tail(filepath.Join(root, "dockerd.log")))
		}
		time.Sleep(100 * time.Millisecond) // polling a real process
	}
}

func (d *Docker) stop() {
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(30 * time.Second):
		d.cmd.Process.Kill()
		<-d.exited
	}
	os.RemoveAll(d.root)
}

// DataRoot is the daemon's --data-root: containers/<id>/<id>-json.log and config.v2.json.
func (d *Docker) DataRoot() string { return filepath.Join(d.root, "data") }

// ImportImage makes an image of the static binary at bin as /specwatch, its entry point, with
// `docker import` of a tarball (no registry, no base image) and returns its name.
func (d *Docker) ImportImage(bin string) string {
	d.tb.Helper()
	data, err := os.ReadFile(bin)
	if err != nil {
		d.tb.Fatalf("testpodman: %v", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "specwatch", Mode: 0o755, Size: int64(len(data)), ModTime: time.Unix(0, 0)})
	tw.Write(data)
	tw.Close()
	const image = "specwatch-test:latest"
	if out, err := d.docker(2*time.Minute, &buf, "import", "-c", `ENTRYPOINT ["/specwatch"]`, "-", image); err != nil {
		d.tb.Fatalf("testpodman: docker import: %v: %s", err, out)
	}
	return image
}

// Run runs r (JournalSockets is StartDocker's, not r's) to its end, keeping the container so
// that its log files stay; it returns the container's standard output and full id.
func (d *Docker) Run(r Run) (stdout []byte, id string) {
	d.tb.Helper()
	args := r.args()
	args = args[1:] // "run"
	for i, a := range args {
		if a == "--rm" {
			args = append(args[:i:i], args[i+1:]...)
			break
		}
	}
	out, err := d.docker(2*time.Minute, nil, append([]string{"run"}, args...)...)
	if err != nil {
		d.tb.Fatalf("testpodman: docker run %s: %v\n%s", r.Name, err, out)
	}
	idOut, err := d.docker(time.Minute, nil, "inspect", "--format", "{{.Id}}", r.Name)
	if err != nil {
		d.tb.Fatalf("testpodman: docker inspect %s: %v: %s", r.Name, err, idOut)
	}
	return out, strings.TrimSpace(string(idOut))
}

func (d *Docker) docker(timeout time.Duration, stdin *bytes.Buffer, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, dockerBin, append([]string{"-H", "unix://" + d.sock}, args...)...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return append(stdout.Bytes(), stderr.Bytes()...), fmt.Errorf("docker %s: %w", strings.Join(args, " "), err)
	}
	return stdout.Bytes(), nil
}

// tail is the end of a log file, for error messages.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(bytes.TrimSpace(b))
}
