// Package testjournal runs a private systemd-journald for one test, so that journal readers
// are tested against the real writer: real rotation, vacuuming, restarts, cursors and
// _SYSTEMD_UNIT, without touching the host's journal.
//
// How: journald is started directly (no systemd PID 1 needed) as a journal namespace
// instance, `systemd-journald NS`, with a random NS per test. It listens on
// /run/systemd/journal.NS/{socket,stdout,dev-log,io.systemd.journal} and writes
// /var/log/journal/<machine-id>.NS — but it runs in a private mount namespace where /var/log
// is the test's temporary directory, so the files land there and vanish with it. Its
// configuration is a drop-in in /run/systemd/journald@NS.conf.d/, removed at cleanup with
// the socket directory. Namespace instances exit after 30 s without clients unless
// MaxRetentionSec is longer than that, so it is set to ten years.
//
// It needs root (mount namespaces, forged SCM_CREDENTIALS, cgroups). When journald cannot
// start here, Start skips the test saying why; set SPECWATCH_REQUIRE_JOURNALD=1 (CI) to
// make that a failure instead.
package testjournal

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Journald is where Debian installs the journal daemon.
const Journald = "/lib/systemd/systemd-journald"

// Options tune the journald instance; the zero value suits most tests.
type Options struct {
	// Conf lines are appended to the [Journal] section, e.g. "SystemMaxFileSize=1M" to make
	// journald rotate by itself.
	Conf []string
}

// Journal is a running private journald. Its methods that can fail call tb.Fatal and so
// belong to the test goroutine, except Send, which returns its error.
type Journal struct {
	tb     testing.TB
	ns     string
	root   string // temporary directory holding everything below
	varlog string // bound over /var/log in journald's mount namespace
	run    string // /run/systemd/journal.NS: the sockets
	dropin string // /run/systemd/journald@NS.conf.d
	dir    string // the journal files: <varlog>/journal/<machine-id>.NS
	spawn  *spawner
	proc   *exec.Cmd
	exited chan struct{} // closed when proc has been waited for
	w      *writer
}

// Start starts a private journald with default options; see StartWith.
func Start(tb testing.TB) *Journal { return StartWith(tb, Options{}) }

// StartWith starts a private journald and stops it, with everything it wrote, when the test
// ends. It returns once journald reported READY=1 over sd_notify.
func StartWith(tb testing.TB, opts Options) *Journal {
	tb.Helper()
	if os.Geteuid() != 0 {
		skip(tb, "needs root to run systemd-journald")
	}
	if _, err := os.Stat(Journald); err != nil {
		skip(tb, "%s not installed: %v", Journald, err)
	}
	reapStale()
	var id [6]byte
	rand.Read(id[:])
	j := &Journal{tb: tb, ns: "swtest" + hex.EncodeToString(id[:]), root: tb.TempDir()}
	j.varlog = filepath.Join(j.root, "varlog")
	j.run = "/run/systemd/journal." + j.ns
	j.dropin = "/run/systemd/journald@" + j.ns + ".conf.d"
	j.spawn = newSpawner()
	tb.Cleanup(j.cleanup)
	conf := []string{
		"[Journal]",
		"Storage=persistent",
		"MaxRetentionSec=10year", // keeps a namespace instance from exiting when idle
		"RateLimitBurst=0",       // tests write bursts of 100k lines from one "service"
		"SystemMaxUse=4G", "SystemKeepFree=0", "SystemMaxFiles=1000",
		"ForwardToSyslog=no", "ForwardToKMsg=no", "ForwardToConsole=no", "ForwardToWall=no",
		"Audit=no", "ReadKMsg=no",
	}
	conf = append(conf, opts.Conf...)
	if err := os.MkdirAll(filepath.Join(j.varlog, "journal"), 0o755); err != nil {
		tb.Fatalf("testjournal: %v", err)
	}
	if err := os.MkdirAll(j.dropin, 0o755); err != nil {
		tb.Fatalf("testjournal: %v", err)
	}
	if err := os.WriteFile(filepath.Join(j.dropin, "testjournal.conf"), []byte(strings.Join(conf, "\n")+"\n"), 0o644); err != nil {
		tb.Fatalf("testjournal: %v", err)
	}
	if err := j.start(); err != nil {
		skip(tb, "systemd-journald does not start here: %v", err)
	}
	w, err := newWriter(j)
	if err != nil {
		tb.Fatalf("testjournal: %v", err)
	}
	j.w = w
	return j
}

// skip skips the test, or fails it when SPECWATCH_REQUIRE_JOURNALD is set.
func skip(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := "testjournal: SKIP (no private journald): " + fmt.Sprintf(format, args...)
	if os.Getenv("SPECWATCH_REQUIRE_JOURNALD") != "" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}

// Dir is the directory journald writes its files to: JournalOptions.Dir for a reader.
func (j *Journal) Dir() string { return j.dir }

// Namespace is the journal namespace name, unique to this instance.
func (j *Journal) Namespace() string { return j.ns }

// SocketDir holds journald's sockets (socket, stdout, dev-log, io.systemd.journal).
func (j *Journal) SocketDir() string { return j.run }

// start runs journald in a new mount namespace with the test's /var/log and waits for
// READY=1. The shell only binds the directory and then execs journald, so the process is
// journald itself.
func (j *Journal) start() error {
	notifyPath := filepath.Join(j.root, "notify")
	os.Remove(notifyPath)
	notify, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: notifyPath, Net: "unixgram"})
	if err != nil {
		return err
	}
	defer notify.Close()
	stderr, err := os.OpenFile(filepath.Join(j.root, "journald.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer stderr.Close()
	cmd := exec.Command("/bin/sh", "-c", `mount --bind "$1" /var/log && exec "$2" "$3"`,
		"sh", j.varlog, Journald, j.ns)
	cmd.Env = []string{"NOTIFY_SOCKET=" + notifyPath, "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "SYSTEMD_LOG_LEVEL=info"}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Unshareflags: syscall.CLONE_NEWNS, // Go also makes / recursively private in the child
		Pdeathsig:    syscall.SIGKILL,     // never outlive the test binary (see spawner)
		Setpgid:      true,
	}
	if err := j.spawn.start(cmd); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	j.proc, j.exited = cmd, exited

	ready := make(chan error, 1)
	go func() {
		buf := make([]byte, 4096)
		notify.SetReadDeadline(time.Now().Add(20 * time.Second))
		for {
			n, err := notify.Read(buf)
			if err != nil {
				ready <- fmt.Errorf("no READY=1 from journald: %w", err)
				return
			}
			if bytes.Contains(buf[:n], []byte("READY=1")) {
				ready <- nil
				return
			}
		}
	}()
	select {
	case err = <-ready:
	case <-exited:
		err = fmt.Errorf("journald exited: %s", cmd.ProcessState)
	}
	if err != nil {
		j.killProc()
		log, _ := os.ReadFile(stderr.Name())
		return fmt.Errorf("%w; its output: %s", err, bytes.TrimSpace(log))
	}
	if j.dir == "" {
		dirs, _ := filepath.Glob(filepath.Join(j.varlog, "journal", "*."+j.ns))
		if len(dirs) != 1 {
			j.killProc()
			return fmt.Errorf("journald wrote no directory *.%s under %s", j.ns, j.varlog)
		}
		j.dir = dirs[0]
	}
	return nil
}

// Kill kills journald with SIGKILL, as a crash would: its active file stays marked online
// and the next journald renames it to *.journal~ and starts a new one.
func (j *Journal) Kill() {
	j.tb.Helper()
	if !j.running() {
		j.tb.Fatal("testjournal: Kill: journald is not running")
	}
	j.killProc()
}

// Restart starts journald again after Kill or Stop, on the same directory and sockets.
func (j *Journal) Restart() {
	j.tb.Helper()
	if j.running() {
		j.tb.Fatal("testjournal: Restart: journald is still running")
	}
	if err := j.start(); err != nil {
		j.tb.Fatalf("testjournal: restarting journald: %v", err)
	}
}

// Stop stops journald cleanly (SIGTERM): it writes what it holds and marks its files offline.
func (j *Journal) Stop() {
	j.tb.Helper()
	if err := j.stop(); err != nil {
		j.tb.Fatalf("testjournal: %v", err)
	}
}

func (j *Journal) running() bool {
	if j.exited == nil {
		return false
	}
	select {
	case <-j.exited:
		return false
	default:
		return true
	}
}

func (j *Journal) stop() error {
	if !j.running() {
		return nil
	}
	j.proc.Process.Signal(syscall.SIGTERM)
	select {
	case <-j.exited:
		return nil
	case <-time.After(10 * time.Second):
		j.killProc()
		return errors.New("journald did not stop within 10s of SIGTERM; killed it")
	}
}

func (j *Journal) killProc() {
	if j.running() {
		j.proc.Process.Kill()
		<-j.exited
	}
}

// cleanup stops everything Start started and removes what it left outside the test's
// temporary directory; on failure it shows journald's own log.
func (j *Journal) cleanup() {
	if j.w != nil {
		j.w.close()
	}
	if err := j.stop(); err != nil {
		j.tb.Errorf("testjournal: %v", err)
	}
	j.spawn.stop()
	os.RemoveAll(j.run)
	os.RemoveAll(j.dropin)
	if j.tb.Failed() {
		if log, err := os.ReadFile(filepath.Join(j.root, "journald.log")); err == nil && len(log) > 0 {
			j.tb.Logf("testjournal: journald's output:\n%s", log)
		}
	}
}
