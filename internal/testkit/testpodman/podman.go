// Package testpodman runs real containers for tests with Debian's podman and runc, without a
// registry: an image FROM scratch holding a static specwatch binary (its `simulate`
// subcommand is the engine), run with the log driver under test.
//
// Why these flags: crun refuses this machine's hybrid cgroup layout, runc does not; systemd is
// not PID 1 here, so cgroups are managed as files (cgroupfs); and runc fails on the host's
// unlimited ulimits, so both are set.
//
// The journald log driver is conmon calling sd_journal_sendv on /run/systemd/journal/socket.
// To send that to a test's private journald (internal/testkit/testjournal) instead of the host's,
// podman runs in a mount namespace of its own where that journald's socket directory is bound
// over /run/systemd/journal; conmon and runc inherit it.
//
// It needs root. When podman or runc is missing or cannot run a container, the test is
// skipped saying why, or fails when SPECWATCH_REQUIRE_JOURNALD is set (as in CI, where
// scripts/deps.sh installs them).
package testpodman

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// baseArgs come before every podman subcommand.
var baseArgs = []string{"--runtime", "runc", "--cgroup-manager=cgroupfs", "--events-backend", "file"}

// runArgs come after `run` in every container run.
var runArgs = []string{"--rm", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"}

// Podman is a podman usable by one test. Its methods call tb.Fatal on failure, so they belong
// to the test goroutine.
type Podman struct {
	tb  testing.TB
	bin string
	id  string // a random suffix for the test's images and containers
}

// Start checks that podman and runc can run here and returns a Podman whose images and
// containers are removed when the test ends.
func Start(tb testing.TB) *Podman {
	tb.Helper()
	if os.Geteuid() != 0 {
		skip(tb, "needs root to run podman with runc")
	}
	bin, err := exec.LookPath("podman")
	if err != nil {
		skip(tb, "podman is not installed (scripts/deps.sh installs it): %v", err)
	}
	if _, err := exec.LookPath("runc"); err != nil {
		skip(tb, "runc is not installed (scripts/deps.sh installs it): %v", err)
	}
	var id [4]byte
	rand.Read(id[:])
	return &Podman{tb: tb, bin: bin, id: hex.EncodeToString(id[:])}
}

// skip skips the test, or fails it when SPECWATCH_REQUIRE_JOURNALD is set.
func skip(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := "testpodman: SKIP: " + fmt.Sprintf(format, args...)
	if os.Getenv("SPECWATCH_REQUIRE_JOURNALD") != "" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}

// Name returns a container or image name unique to the test: base plus a random suffix.
func (p *Podman) Name(base string) string { return base + "-" + p.id }

// BuildImage builds an image FROM scratch with the static binary at bin as /specwatch (its
// entry point) from the Containerfile containerfile (empty: a minimal one written here) and
// returns its name; the image is removed when the test ends. The build context is a
// temporary directory holding the binary as `specwatch` and the files of extra (name →
// content).
func (p *Podman) BuildImage(bin, containerfile string, extra map[string]string) string {
	p.tb.Helper()
	ctx := p.tb.TempDir()
	data, err := os.ReadFile(bin)
	if err != nil {
		p.tb.Fatalf("testpodman: %v", err)
	}
	if err := os.WriteFile(filepath.Join(ctx, "specwatch"), data, 0o755); err != nil {
		p.tb.Fatalf("testpodman: %v", err)
	}
	for name, content := range extra {
		path := filepath.Join(ctx, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			p.tb.Fatalf("testpodman: %v", err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			p.tb.Fatalf("testpodman: %v", err)
		}
	}
	if containerfile == "" {
		containerfile = filepath.Join(ctx, "Containerfile")
		cf := "FROM scratch\nCOPY specwatch /specwatch\nENTRYPOINT [\"/specwatch\"]\n"
		if err := os.WriteFile(containerfile, []byte(cf), 0o644); err != nil {
			p.tb.Fatalf("testpodman: %v", err)
		}
	}
	image := "localhost/" + p.Name("specwatch-test") + ":latest"
	if out, err := p.podman(2*time.Minute, nil, "build", "--pull=never", "-f", containerfile, "-t", image, ctx); err != nil {
		p.tb.Fatalf("testpodman: podman build %s: %v\n%s", containerfile, err, out)
	}
	p.tb.Cleanup(func() { p.podman(time.Minute, nil, "rmi", "--force", image) })
	return image
}

// Run describes one container run.
type Run struct {
	Image, Name string
	// LogDriver and LogOpts are podman's --log-driver and --log-opt values.
	LogDriver string
	LogOpts   []string
	// JournalSockets, when set, is a private journald's socket directory
	// (testjournal.Journal.SocketDir): the journald driver writes there.
	JournalSockets string
	// Network is podman's --network: "none" when empty (no network backend is needed),
	// "host" for a server the test reaches on loopback.
	Network string
	// Options are more `podman run` options (--network host, -v, --group-add, …).
	Options []string
	// Args follow the image: the entry point's arguments.
	Args []string
}

// args is the podman command line of r.
func (r *Run) args() []string {
	args := append([]string{"run"}, runArgs...)
	args = append(args, "--name", r.Name)
	network := r.Network
	if network == "" {
		network = "none"
	}
	args = append(args, "--network", network)
	if r.LogDriver != "" {
		args = append(args, "--log-driver", r.LogDriver)
	}
	for _, o := range r.LogOpts {
		args = append(args, "--log-opt", o)
	}
	args = append(args, r.Options...)
	args = append(args, r.Image)
	return append(args, r.Args...)
}

// Run runs r to its end and returns what the container printed on standard output, as podman
// relays it (the log driver's copy is what the test reads).
func (p *Podman) Run(r Run) []byte {
	p.tb.Helper()
	out, err := p.podman(2*time.Minute, &r, r.args()...)
	if err != nil {
		p.tb.Fatalf("testpodman: podman run %s: %v\n%s", r.Name, err, out)
	}
	return out
}

// podman runs one podman command and returns its standard output (with standard error after
// it on failure). With r.JournalSockets set it runs in a private mount namespace where that
// directory is /run/systemd/journal.
func (p *Podman) podman(timeout time.Duration, r *Run, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	full := append(append([]string{}, baseArgs...), args...)
	var cmd *exec.Cmd
	if r != nil && r.JournalSockets != "" {
		// /run/systemd/journal may not exist on a machine whose journald is not running;
		// an empty directory there is what systemd would create.
		if err := os.MkdirAll("/run/systemd/journal", 0o755); err != nil {
			return nil, err
		}
		script := `mount --bind "$1" /run/systemd/journal && shift && exec "$@"`
		cmd = exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", script, "sh", r.JournalSockets, p.bin}, full...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS} // Go makes / private in the child
	} else {
		cmd = exec.CommandContext(ctx, p.bin, full...)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		return append(stdout.Bytes(), stderr.Bytes()...), fmt.Errorf("%s: %w", strings.Join(full, " "), err)
	}
	return stdout.Bytes(), nil
}

// ImageConfig returns podman image inspect's --format of image.
func (p *Podman) ImageConfig(image, format string) string {
	p.tb.Helper()
	out, err := p.podman(time.Minute, nil, "image", "inspect", "--format", format, image)
	if err != nil {
		p.tb.Fatalf("testpodman: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// Volume creates a named volume, removed when the test ends, and returns its name. Mounted
// over an image's directory, it starts with that directory's content and owner.
func (p *Podman) Volume(base string) string {
	p.tb.Helper()
	name := p.Name(base)
	if out, err := p.podman(time.Minute, nil, "volume", "create", name); err != nil {
		p.tb.Fatalf("testpodman: %v: %s", err, out)
	}
	p.tb.Cleanup(func() { p.podman(time.Minute, nil, "volume", "rm", "--force", name) })
	return name
}
