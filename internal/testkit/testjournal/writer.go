package testjournal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// writer sends entries over journald's native protocol (systemd.io/JOURNAL_NATIVE_PROTOCOL):
// one datagram per entry, `FIELD=value\n` lines, MESSAGE always in the length-prefixed binary
// form so any bytes arrive unchanged.
//
// _SYSTEMD_UNIT cannot be sent: journald derives it from the sender's cgroup. So each unit
// gets a placeholder process (`sleep infinity`) in a cgroup named like a service,
// <cgroup root>/<random>.slice/<unit>, and datagrams are sent with SCM_CREDENTIALS naming the
// placeholder's pid. Root may send another process's pid; journald then reads that process's
// /proc entries, cgroup included. Entries without a unit come from a placeholder in a cgroup
// that is no unit (…/nounit), so the test binary's own cgroup (a CI runner's service) never
// leaks into them.
type writer struct {
	j    *Journal
	conn *net.UnixConn
	addr *net.UnixAddr

	mu      sync.Mutex
	cgroot  string // the slice directory, "" when cgroups cannot be used here
	cgErr   error  // why not
	senders map[string]*sender
	buf     []byte
}

type sender struct {
	cmd   *exec.Cmd
	dir   string // its cgroup directory
	creds []byte // SCM_CREDENTIALS naming it
	ucred syscall.Ucred
}

func newWriter(j *Journal) (*writer, error) {
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Net: "unixgram"})
	if err != nil {
		return nil, err
	}
	// Large entries are single datagrams; the send buffer bounds their size.
	if raw, err := conn.SyscallConn(); err == nil {
		raw.Control(func(fd uintptr) {
			syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUFFORCE, 8<<20)
		})
	}
	w := &writer{j: j, conn: conn, senders: map[string]*sender{},
		addr: &net.UnixAddr{Name: filepath.Join(j.run, "socket"), Net: "unixgram"}}
	w.cgroot, w.cgErr = makeSlice(j.ns)
	return w, nil
}

// Write sends one entry and fails the test if journald does not take it. unit "" means no
// _SYSTEMD_UNIT; identifier "" means no SYSLOG_IDENTIFIER.
func (j *Journal) Write(unit, identifier string, msg []byte) {
	j.tb.Helper()
	if err := j.Send(unit, identifier, msg); err != nil {
		j.tb.Fatal(err)
	}
}

// WriteLines writes each message as its own entry, in order.
func (j *Journal) WriteLines(unit, identifier string, msgs ...[]byte) {
	j.tb.Helper()
	for _, m := range msgs {
		j.Write(unit, identifier, m)
	}
}

// Send is Write for any goroutine: it returns the error (for example ECONNREFUSED while
// journald is down after Kill). Entries sent are queued in journald's socket and written in
// order; Sync waits for them to reach the files. Safe for concurrent use.
func (j *Journal) Send(unit, identifier string, msg []byte, extra ...Field) error {
	return j.w.send(unit, identifier, msg, extra, -1)
}

// SendAsUser is Send with the sender's credentials naming uid: journald writes the entries of
// a uid of 1000 or more to that user's journal file (user-UID.journal) instead of the system
// one, so two files are written at once.
func (j *Journal) SendAsUser(uid int, unit, identifier string, msg []byte) error {
	return j.w.send(unit, identifier, msg, nil, uid)
}

// UnitsSupported reports whether entries can carry a _SYSTEMD_UNIT here (cgroups writable),
// and if not, why.
func (j *Journal) UnitsSupported() (bool, error) { return j.w.cgErr == nil, j.w.cgErr }

// RequireUnits skips the test (or fails it under SPECWATCH_REQUIRE_JOURNALD) when entries
// cannot carry a _SYSTEMD_UNIT here.
func (j *Journal) RequireUnits() {
	j.tb.Helper()
	if j.w.cgErr != nil {
		skip(j.tb, "entries cannot carry _SYSTEMD_UNIT here: %v", j.w.cgErr)
	}
}

func (w *writer) send(unit, identifier string, msg []byte, extra []Field, uid int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, err := w.sender(unit)
	if err != nil {
		return err
	}
	creds := s.creds
	if uid >= 0 && s.cmd != nil {
		u := s.ucred
		u.Uid = uint32(uid)
		creds = syscall.UnixCredentials(&u)
	}
	b := w.buf[:0]
	b = append(b, "PRIORITY=6\n"...)
	if identifier != "" {
		b = append(b, "SYSLOG_IDENTIFIER="...)
		b = append(b, identifier...)
		b = append(b, '\n')
	}
	for _, f := range extra {
		b = appendBinary(b, f.Name, f.Value)
	}
	b = appendBinary(b, "MESSAGE", msg)
	w.buf = b
	if _, _, err := w.conn.WriteMsgUnix(b, creds, w.addr); err != nil {
		return fmt.Errorf("testjournal: sending to %s: %w", w.addr.Name, err)
	}
	return nil
}

func appendBinary(b []byte, name string, v []byte) []byte {
	b = append(b, name...)
	b = append(b, '\n')
	b = binary.LittleEndian.AppendUint64(b, uint64(len(v)))
	b = append(b, v...)
	return append(b, '\n')
}

// sender returns the placeholder for unit, starting it on first use.
func (w *writer) sender(unit string) (*sender, error) {
	if s := w.senders[unit]; s != nil {
		return s, nil
	}
	if w.cgErr != nil {
		if unit != "" {
			return nil, fmt.Errorf("testjournal: entries cannot carry _SYSTEMD_UNIT=%s here: %w", unit, w.cgErr)
		}
		// No cgroups: unit-less entries come from the test binary itself.
		s := &sender{}
		w.senders[unit] = s
		return s, nil
	}
	name := unit
	if name == "" {
		name = "nounit"
	}
	dir := filepath.Join(w.cgroot, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("testjournal: cgroup for %q: %w", unit, err)
	}
	cmd := exec.Command("sleep", "infinity")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := w.j.spawn.start(cmd); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("testjournal: starting placeholder for %q: %w", unit, err)
	}
	pid := cmd.Process.Pid
	s := &sender{cmd: cmd, dir: dir}
	w.senders[unit] = s
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
		return nil, fmt.Errorf("testjournal: moving pid %d into %s: %w", pid, dir, err)
	}
	s.ucred = syscall.Ucred{Pid: int32(pid), Uid: uint32(os.Getuid()), Gid: uint32(os.Getgid())}
	s.creds = syscall.UnixCredentials(&s.ucred)
	return s, nil
}

func (w *writer) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.conn.Close()
	for _, s := range w.senders {
		if s.cmd != nil {
			s.cmd.Process.Kill()
			s.cmd.Wait()
		}
		if s.dir != "" {
			os.Remove(s.dir)
		}
	}
	if w.cgroot != "" {
		os.Remove(w.cgroot)
	}
}

// makeSlice creates the test's slice in the cgroup hierarchy journald reads units from,
// choosing it as systemd does: cgroup2 at /sys/fs/cgroup (unified), else cgroup2 at
// /sys/fs/cgroup/unified (hybrid), else the named v1 hierarchy /sys/fs/cgroup/systemd.
func makeSlice(ns string) (string, error) {
	const cgroup2Magic, cgroup1Magic = 0x63677270, 0x27e0eb
	var root string
	for _, c := range []struct {
		path  string
		magic int64
	}{{"/sys/fs/cgroup", cgroup2Magic}, {"/sys/fs/cgroup/unified", cgroup2Magic}, {"/sys/fs/cgroup/systemd", cgroup1Magic}} {
		var st syscall.Statfs_t
		if syscall.Statfs(c.path, &st) == nil && st.Type == c.magic {
			root = c.path
			break
		}
	}
	if root == "" {
		return "", errors.New("no cgroup hierarchy for systemd found under /sys/fs/cgroup")
	}
	dir := filepath.Join(root, ns+".slice")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", fmt.Errorf("cgroups not writable: %w", err)
	}
	return dir, nil
}
