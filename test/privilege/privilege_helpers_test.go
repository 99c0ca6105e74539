package privilege

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// The unit's privilege settings reproduced without systemd as PID 1, with the kernel
// mechanisms systemd itself uses: a private mount namespace (unshare), bind and overlay mounts
// remounted read-only, tmpfs, then setresuid/setgroups/capability sets/no_new_privs (setpriv)
// right before exec. Everything is derived from the [Service] section of specwatch.service.

// sandbox is what the unit asks for, in the terms the kernel applies.
type sandbox struct {
	uid, gid   int
	groups     []int // SupplementaryGroups=, resolved
	groupNames []string
	umask      string // UMask=
	stateDir   string // /var/lib/<StateDirectory=>, the only writable path (ProtectSystem=strict)
	stateMode  os.FileMode
	configDir  string // /etc/<ConfigurationDirectory=>
	configMode os.FileMode
	exec       []string // ExecStart=
}

// The range systemd allocates DynamicUser= ids from (61184–65519).
const dynamicUIDFirst, dynamicUIDLast = 61184, 65519

// sandboxFromUnit derives the sandbox from the unit and fails the test when the unit does not
// make the claims the privilege test is about (no capabilities, no_new_privs, a read-only
// system, a private /tmp, an unprivileged user).
func sandboxFromUnit(t *testing.T, unit []byte) sandbox {
	t.Helper()
	s := parseService(unit)
	var sb sandbox
	switch {
	case s.yes("DynamicUser"):
		// A transient uid = gid from systemd's dynamic range, unknown to passwd and group.
		for id := dynamicUIDFirst + 50; id <= dynamicUIDLast && sb.uid == 0; id++ {
			_, errU := user.LookupId(strconv.Itoa(id))
			_, errG := user.LookupGroupId(strconv.Itoa(id))
			if errors.As(errU, new(user.UnknownUserIdError)) && errors.As(errG, new(user.UnknownGroupIdError)) {
				sb.uid, sb.gid = id, id
			}
		}
		if sb.uid == 0 {
			t.Fatalf("no free uid in systemd's dynamic range %d–%d", dynamicUIDFirst, dynamicUIDLast)
		}
	case s.value("User") != "":
		u, err := user.Lookup(s.value("User"))
		if err != nil {
			t.Fatalf("User=%s: %v", s.value("User"), err)
		}
		sb.uid, _ = strconv.Atoi(u.Uid)
		sb.gid, _ = strconv.Atoi(u.Gid)
	}
	if sb.uid == 0 {
		t.Fatalf("the unit runs as root: neither DynamicUser=yes nor a User= other than root")
	}
	if g := s.value("Group"); g != "" {
		grp, err := user.LookupGroup(g)
		if err != nil {
			t.Fatalf("Group=%s: %v", g, err)
		}
		sb.gid, _ = strconv.Atoi(grp.Gid)
	}
	for _, name := range s.words("SupplementaryGroups") {
		grp, err := user.LookupGroup(name)
		if err != nil {
			t.Fatalf("SupplementaryGroups=%s: the group does not exist here (%v); on Debian the systemd package creates systemd-journal", name, err)
		}
		gid, _ := strconv.Atoi(grp.Gid)
		sb.groups, sb.groupNames = append(sb.groups, gid), append(sb.groupNames, name)
	}
	if caps, ok := s["CapabilityBoundingSet"]; !ok || len(caps) > 0 {
		t.Fatalf("CapabilityBoundingSet=%q: the unit must empty the bounding set (CapabilityBoundingSet= alone)", caps)
	}
	if len(s.words("AmbientCapabilities")) > 0 {
		t.Fatalf("AmbientCapabilities=%q: the unit must grant no ambient capability", s.words("AmbientCapabilities"))
	}
	if !s.yes("NoNewPrivileges") {
		t.Fatal("the unit lacks NoNewPrivileges=yes")
	}
	if s.value("ProtectSystem") != "strict" {
		t.Fatalf("ProtectSystem=%q, want strict", s.value("ProtectSystem"))
	}
	if !s.yes("PrivateTmp") {
		t.Fatal("the unit lacks PrivateTmp=yes")
	}
	sb.umask = s.value("UMask")
	if sb.umask == "" {
		sb.umask = "0022" // systemd's default
	}
	dir := func(key, base string) (string, os.FileMode) {
		names := s.words(key)
		if len(names) != 1 {
			t.Fatalf("%s=%q: the test handles exactly one directory", key, names)
		}
		mode := uint64(0o755) // systemd's default for *DirectoryMode=
		if m := s.value(key + "Mode"); m != "" {
			var err error
			if mode, err = strconv.ParseUint(m, 8, 32); err != nil {
				t.Fatalf("%sMode=%s: %v", key, m, err)
			}
		}
		return filepath.Join(base, names[0]), os.FileMode(mode)
	}
	sb.stateDir, sb.stateMode = dir("StateDirectory", "/var/lib")
	sb.configDir, sb.configMode = dir("ConfigurationDirectory", "/etc")
	sb.exec = expandExec(t, strings.Fields(s.value("ExecStart")), s.value("EnvironmentFile"))
	if len(sb.exec) == 0 || strings.ContainsAny(sb.exec[0][:1], "+!@-:") {
		// "+" and "!" would run the command outside the sandbox or the user change.
		t.Fatalf("ExecStart=%q: want a plain absolute command", s.value("ExecStart"))
	}
	return sb
}

// expandExec does what systemd does with a word "$NAME" of ExecStart=: it becomes the words of
// NAME's value from the EnvironmentFile= (none when the value is empty or unset). The file read
// is the one the package installs there, deploy/debian/default; "-" marks it optional.
func expandExec(t *testing.T, words []string, envFile string) []string {
	t.Helper()
	env := map[string]string{}
	if envFile != "" {
		if strings.TrimPrefix(envFile, "-") != "/etc/default/specwatch" {
			t.Fatalf("EnvironmentFile=%s: the test knows only /etc/default/specwatch", envFile)
		}
		b, err := os.ReadFile(filepath.Join(testharness.RepoRoot(t), "deploy", "debian", "default"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && !strings.HasPrefix(k, "#") {
				env[k] = strings.Trim(v, `"`)
			}
		}
	}
	var out []string
	for _, w := range words {
		if name, ok := strings.CutPrefix(w, "$"); ok && !strings.HasPrefix(name, "{") {
			out = append(out, strings.Fields(env[name])...)
			continue
		}
		out = append(out, w)
	}
	return out
}

// configPath is the --config.file argument of ExecStart=.
func (sb sandbox) configPath() string {
	for i, a := range sb.exec {
		if a == "--config.file" && i+1 < len(sb.exec) {
			return sb.exec[i+1]
		}
	}
	return ""
}

// mirrorDir creates dir with the mode and owner of like: an overlay's merged directory takes
// its attributes from the topmost layer holding it.
func mirrorDir(t *testing.T, dir, like string) {
	t.Helper()
	fi, err := os.Stat(like)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, int(st.Uid), int(st.Gid)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, fi.Mode()&(os.ModePerm|os.ModeSetgid|os.ModeSticky)); err != nil {
		t.Fatal(err)
	}
}

// shQuote quotes s for /bin/sh.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// sandboxed is a specwatch daemon started under a sandbox.
type sandboxed struct {
	pid       int
	addr      string // its listen address
	hostState string // the state directory as seen from the host
	journal   string // the journal directory as the daemon sees it
	log       *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) add(line string) {
	l.mu.Lock()
	l.b.WriteString(line + "\n")
	l.mu.Unlock()
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startSandboxed runs the unit's ExecStart= (the built binary at its path, the packaged config
// at its path, no --state-dir: the config's state_dir must be the StateDirectory=) on the
// private journal, with test-only overrides for the journal, the match and the listen address.
func startSandboxed(t *testing.T, sb sandbox, j *testjournal.Journal, varlog string, match ...string) *sandboxed {
	t.Helper()
	unshare := testharness.NeedTool(t, "unshare", "util-linux")
	setpriv := testharness.NeedTool(t, "setpriv", "util-linux")
	testharness.NeedTool(t, "findmnt", "util-linux")
	if os.Geteuid() != 0 {
		t.Skip("SKIP: building the sandbox (mount namespace, setresuid) needs root")
	}
	bin := testharness.BuildSpecwatch(t)
	root := t.TempDir()
	layer := func(name, like string) string {
		d := filepath.Join(root, name)
		mirrorDir(t, d, like)
		return d
	}
	// Read-only overlays put the binary, the config and the state directory's mount point at
	// their production paths without touching the host's /usr/bin, /etc or /var/lib.
	binDir := filepath.Dir(sb.exec[0])
	binLayer := layer("bin", binDir)
	if err := os.Link(bin, filepath.Join(binLayer, filepath.Base(sb.exec[0]))); err != nil {
		b, err := os.ReadFile(bin) // another file system: copy
		if err == nil {
			err = os.WriteFile(filepath.Join(binLayer, filepath.Base(sb.exec[0])), b, 0o755)
		}
		if err != nil {
			t.Fatalf("putting the binary into the overlay layer: %v", err)
		}
	}
	etcLayer := layer("etc", "/etc")
	cfgDir := filepath.Join(etcLayer, strings.TrimPrefix(sb.configDir, "/etc/"))
	if err := os.Mkdir(cfgDir, sb.configMode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(cfgDir, sb.configMode)
	cfg, err := os.ReadFile(testharness.DeployPath(t, "specwatch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if cp := sb.configPath(); filepath.Dir(cp) != sb.configDir {
		t.Fatalf("ExecStart=%s reads %q, outside ConfigurationDirectory=%s", strings.Join(sb.exec, " "), cp, sb.configDir)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, filepath.Base(sb.configPath())), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	libLayer := layer("varlib", "/var/lib")
	hostState := filepath.Join(root, "state") // where systemd would keep it: /var/lib/private/specwatch
	for _, d := range []string{filepath.Join(libLayer, filepath.Base(sb.stateDir)), hostState} {
		if err := os.Mkdir(d, sb.stateMode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, sb.stateMode)
		if err := os.Chown(d, sb.uid, sb.gid); err != nil {
			t.Fatal(err)
		}
	}

	steps := [][]string{
		// The private journal at the host's path, as testjournal shows it to journald.
		{"mount", "--bind", varlog, "/var/log"},
		{"mount", "-t", "overlay", "overlay", "-o", "lowerdir=" + binLayer + ":" + binDir, binDir},
		{"mount", "-t", "overlay", "overlay", "-o", "lowerdir=" + etcLayer + ":/etc", "/etc"},
		{"mount", "-t", "overlay", "overlay", "-o", "lowerdir=" + libLayer + ":/var/lib", "/var/lib"},
		{"mount", "--bind", hostState, sb.stateDir},
	}
	var script strings.Builder
	script.WriteString("set -eu\n")
	for _, s := range steps {
		for i, a := range s {
			if i > 0 {
				script.WriteByte(' ')
			}
			script.WriteString(shQuote(a))
		}
		script.WriteByte('\n')
	}
	// ProtectSystem=strict: every mount read-only but the API file systems; a bind remount
	// changes the mount, not the file system (the host's / stays writable).
	script.WriteString(`findmnt -ln -o TARGET | while IFS= read -r m; do
	case $m in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*) continue;; esac
	mount -o remount,bind,ro "$m"
done
`)
	fmt.Fprintf(&script, "mount -o remount,bind,rw %s\n", shQuote(sb.stateDir)) // StateDirectory=
	// PrivateTmp=: new, empty /tmp and /var/tmp, mode 1777 as systemd makes them.
	script.WriteString("mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp\n")
	script.WriteString("mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /var/tmp\n")
	fmt.Fprintf(&script, "umask %s\nexec \"$@\"\n", sb.umask)

	groups := "--clear-groups"
	if len(sb.groups) > 0 {
		var g []string
		for _, id := range sb.groups {
			g = append(g, strconv.Itoa(id))
		}
		groups = "--groups=" + strings.Join(g, ",")
	}
	var inv [16]byte
	rand.Read(inv[:])
	journal := filepath.Join("/var/log/journal", filepath.Base(j.Dir()))
	args := []string{"--mount", "--propagation", "private", "/bin/sh", "-c", script.String(), "sandbox",
		// The environment systemd gives a service.
		"env", "-i", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"INVOCATION_ID=" + hex.EncodeToString(inv[:]), "STATE_DIRECTORY=" + sb.stateDir,
		"CONFIGURATION_DIRECTORY=" + sb.configDir,
		setpriv, "--reuid=" + strconv.Itoa(sb.uid), "--regid=" + strconv.Itoa(sb.gid), groups,
		"--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"}
	args = append(args, sb.exec...)
	args = append(args, "--journal.directory", journal, "--web.listen-address", "127.0.0.1:0", "--log.format", "json")
	args = append(args, match...)

	cmd := exec.Command(unshare, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	d := &sandboxed{pid: cmd.Process.Pid, hostState: hostState, journal: journal, log: &lockedBuffer{}}
	t.Cleanup(func() {
		// SIGTERM, as systemd stops it; the whole process group, in case setup failed midway.
		syscall.Kill(-d.pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			syscall.Kill(-d.pid, syscall.SIGKILL)
			<-exited
			t.Errorf("specwatch did not stop within 30 s of SIGTERM")
		}
		if t.Failed() {
			t.Logf("specwatch's (and the sandbox setup's) output:\n%s", d.log)
		}
	})
	addr := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			d.log.add(sc.Text())
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["listen"] != nil && strings.HasPrefix(fmt.Sprint(m["message"]), "serving") {
				select {
				case addr <- fmt.Sprint(m["listen"]):
				default:
				}
			}
		}
		cmd.Wait() // after the last read, as os/exec requires
	}()
	select {
	case d.addr = <-addr:
	case <-exited:
		t.Fatalf("the sandboxed specwatch exited: %s\n%s", cmd.ProcessState, d.log)
	case <-time.After(60 * time.Second):
		t.Fatalf("the sandboxed specwatch did not start within 60 s:\n%s", d.log)
	}
	return d
}

// procStatus reads /proc/<pid>/status into key → value.
func procStatus(t *testing.T, pid int) map[string]string {
	t.Helper()
	m, err := testharness.ReadProcStatus(pid)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mountEntry is one line of /proc/<pid>/mountinfo.
type mountEntry struct {
	point, fstype string
	readOnly      bool
}

func procMounts(t *testing.T, pid int) []mountEntry {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", pid))
	if err != nil {
		t.Fatal(err)
	}
	var out []mountEntry
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		pre, post, _ := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 6 || len(g) < 1 {
			t.Fatalf("bad mountinfo line %q", line)
		}
		point, _ := strconv.Unquote(`"` + strings.ReplaceAll(f[4], `"`, `\"`) + `"`) // \040 escapes
		out = append(out, mountEntry{point: point, fstype: g[0],
			readOnly: strings.HasPrefix(f[5], "ro,") || f[5] == "ro"})
	}
	return out
}
