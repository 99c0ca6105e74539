package privilege

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// The hardening issue's privilege claim: the packaged unit runs specwatch with no
// capabilities, a read-only root, a private /tmp and only the journal group, and the daemon
// works so. TestPrivilegeUnitSecurityAnalysis checks the settings as systemd reads them;
// TestPrivilegeSandboxedDaemon runs the real binary under them (see privilege_helpers_test.go
// for how, without systemd as PID 1) and shows it reading the journal, serving the counts and
// saving its cursor, from outside and from inside its sandbox.

// engineUnit is the unit the engine's lines in the private journal come from.
const engineUnit = "sglang.service"

// TestPrivilegeUnitSecurityAnalysis: `systemd-analyze security --offline` finds every
// privilege setting of the unit in place; the one open item among them is the journal group.
func TestPrivilegeUnitSecurityAnalysis(t *testing.T) {
	t.Parallel()
	sa := testharness.NeedTool(t, "systemd-analyze", "systemd")
	r := testharness.RunCmd(t, time.Minute, "", nil, sa, "security", "--offline=true", "--no-pager", testharness.DeployPath(t, "specwatch.service"))
	if r.Err != nil || r.Code != 0 {
		t.Fatalf("systemd-analyze security: exit %d, err %v:\n%s", r.Code, r.Err, r.Output())
	}
	passed, failed := map[string]string{}, map[string]string{}
	for _, line := range strings.Split(r.Stdout, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		if _, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
			f = f[:len(f)-1] // the exposure column
		}
		switch f[0] {
		case "✓":
			passed[f[1]] = strings.Join(f[2:], " ")
		case "✗":
			failed[f[1]] = strings.Join(f[2:], " ")
		}
	}
	caps := 0
	for name := range passed {
		if strings.HasPrefix(name, "CapabilityBoundingSet=~") {
			caps++
		}
	}
	for name := range failed {
		if strings.HasPrefix(name, "CapabilityBoundingSet=") {
			t.Errorf("capability left in the bounding set: %s (%s)", name, failed[name])
		}
	}
	if caps < 20 {
		t.Errorf("only %d CapabilityBoundingSet checks passed; systemd 252 lists 26", caps)
	}
	for _, name := range []string{"User=/DynamicUser=", "NoNewPrivileges=", "AmbientCapabilities=",
		"ProtectSystem=", "PrivateTmp=", "RestrictSUIDSGID=", "PrivateUsers="} {
		if _, ok := passed[name]; !ok {
			t.Errorf("%s not passed: %q", name, failed[name])
		}
	}
	if d := passed["ProtectSystem="]; !strings.Contains(d, "strict") {
		t.Errorf("ProtectSystem= is not strict: %q", d)
	}
	if _, ok := failed["SupplementaryGroups="]; !ok {
		t.Errorf("systemd-analyze no longer reports supplementary groups; the journal group is needed")
	}
	if g := parseService(testharness.ReadUnit(t)).words("SupplementaryGroups"); !slices.Equal(g, []string{"systemd-journal"}) {
		t.Errorf("SupplementaryGroups=%q, want only systemd-journal", g)
	}
	t.Logf("passed: %d capability checks, User=/DynamicUser=, NoNewPrivileges=, AmbientCapabilities=, ProtectSystem= (%s), PrivateTmp=; open: SupplementaryGroups= (%s)",
		caps, passed["ProtectSystem="], failed["SupplementaryGroups="])
}

// TestPrivilegeSandboxedDaemon starts `specwatch run` as the unit's ExecStart= under the unit's
// identity, capability, no_new_privs and file-system settings, on a private journald, and
// checks the restrictions on the running process and that it still does its job.
func TestPrivilegeSandboxedDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("builds specwatch and runs it with a private journald")
	}
	t.Parallel()
	sb := sandboxFromUnit(t, testharness.ReadUnit(t))
	if !slices.Equal(sb.groupNames, []string{"systemd-journal"}) {
		t.Fatalf("SupplementaryGroups=%q, want only systemd-journal", sb.groupNames)
	}
	j := testjournal.Start(t)
	varlog := grantJournalGroup(t, j, "systemd-journal")
	for _, f := range j.Files() {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		// Readable by the group and not by others: the group is the daemon's only way in.
		if st := fi.Sys().(*syscall.Stat_t); int(st.Gid) != sb.groups[0] || fi.Mode()&0o044 != 0o040 {
			t.Fatalf("%s: mode %v gid %d; want group-readable, not world-readable, group %d", f, fi.Mode(), st.Gid, sb.groups[0])
		}
	}
	match := []string{"--journal.unit", engineUnit}
	unit := engineUnit
	if ok, _ := j.UnitsSupported(); !ok {
		match, unit = []string{"--journal.identifier", "python3"}, ""
	}
	d := startSandboxed(t, sb, j, varlog, match...)

	// From outside: the kernel's view of the process.
	st := procStatus(t, d.pid)
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", d.pid))
	if st["Name"] != "specwatch" || exe != sb.exec[0] {
		t.Fatalf("pid %d is %q (%s), not the daemon %s", d.pid, st["Name"], exe, sb.exec[0])
	}
	ids := func(id int) string { s := strconv.Itoa(id); return strings.Join([]string{s, s, s, s}, "\t") }
	want := map[string]string{
		"Uid": ids(sb.uid), "Gid": ids(sb.gid), "Groups": strconv.Itoa(sb.groups[0]),
		"CapInh": "0000000000000000", "CapPrm": "0000000000000000", "CapEff": "0000000000000000",
		"CapBnd": "0000000000000000", "CapAmb": "0000000000000000", "NoNewPrivs": "1",
	}
	for _, k := range []string{"Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs"} {
		if st[k] != want[k] {
			t.Errorf("/proc/%d/status %s: %q, want %q", d.pid, k, st[k], want[k])
		}
	}
	t.Logf("/proc/%d/status (%s): Uid %q Gid %q Groups %q CapInh %s CapPrm %s CapEff %s CapBnd %s CapAmb %s NoNewPrivs %s Seccomp %s",
		d.pid, exe, st["Uid"], st["Gid"], st["Groups"], st["CapInh"], st["CapPrm"], st["CapEff"], st["CapBnd"], st["CapAmb"], st["NoNewPrivs"], st["Seccomp"])

	seen := map[string]bool{}
	for _, m := range procMounts(t, d.pid) {
		if m.point == "/proc" || m.point == "/sys" || m.point == "/dev" ||
			strings.HasPrefix(m.point, "/proc/") || strings.HasPrefix(m.point, "/sys/") || strings.HasPrefix(m.point, "/dev/") {
			continue // API file systems: ProtectSystem= leaves them to other settings
		}
		seen[m.point] = true
		writable := m.point == sb.stateDir || m.point == "/tmp" || m.point == "/var/tmp"
		if m.readOnly == writable {
			t.Errorf("mount %s (%s) in the daemon's namespace: read-only %v, want %v", m.point, m.fstype, m.readOnly, !writable)
		}
		if (m.point == "/tmp" || m.point == "/var/tmp") && m.fstype != "tmpfs" {
			t.Errorf("%s is %s, want a private tmpfs", m.point, m.fstype)
		}
	}
	for _, p := range []string{"/", sb.stateDir, "/tmp", "/var/tmp"} {
		if !seen[p] {
			t.Errorf("no mount at %s in the daemon's namespace", p)
		}
	}

	// From inside: the daemon's identity in its mount namespace.
	journalFile := filepath.Join(d.journal, "system.journal")
	probe := `set -u
cat "$1" >/dev/null && echo read-journal=ok
echo "tmp=[$(ls -A /tmp)] var-tmp=[$(ls -A /var/tmp)]"
for p in / /etc /usr/bin /var/lib /var/log/journal /var/cache; do touch "${p%/}/specwatch-probe" 2>&1 && echo "wrote=$p"; done
touch "$2/probe" && echo state=ok && rm "$2/probe"`
	out := d.probe(t, sb, true, probe, journalFile, sb.stateDir)
	for _, w := range []string{"read-journal=ok", "state=ok", "tmp=[] var-tmp=[]", "touch: cannot touch '/etc/specwatch-probe': Read-only file system"} {
		if !strings.Contains(out, w) {
			t.Errorf("inside the sandbox, %q missing:\n%s", w, out)
		}
	}
	if strings.Contains(out, "wrote=") {
		t.Errorf("the daemon's identity wrote outside %s:\n%s", sb.stateDir, out)
	}
	if out := d.probe(t, sb, false, `cat "$1" >/dev/null && echo read-journal=ok`, journalFile); !strings.Contains(out, "Permission denied") {
		t.Errorf("without systemd-journal the same uid should not read the journal:\n%s", out)
	}

	// It works: entries written now are read, counted, and the cursor saved.
	waitHTTP(t, "http://"+d.addr+"/-/ready", "", 60*time.Second)
	const n = 40
	for i := range n {
		line := fmt.Sprintf("[%s TP0] Decode batch, #running-req: 1, #token: %d, token usage: 0.02, accept len: 3.10, accept rate: 0.30, cuda graph: True, gen throughput (token/s): 75.00, #queue-req: 0",
			time.Now().UTC().Format("2006-01-02 15:04:05"), 500+40*i)
		j.Write(unit, "python3", []byte(line))
	}
	j.Sync()
	matched := waitHTTP(t, "http://"+d.addr+"/metrics", fmt.Sprintf("specwatch_lines_total{result=\"matched\"} %d\n", n), 30*time.Second)
	for _, l := range strings.Split(matched, "\n") {
		if strings.HasPrefix(l, "specwatch_lines_total") || strings.HasPrefix(l, "specwatch_cursor_save_failures_total") {
			t.Logf("/metrics: %s", l)
		}
	}
	// The saved cursor must reach the last entry written (the daemon saves at most once a second).
	field := "_SYSTEMD_UNIT=" + unit
	if unit == "" {
		field = "SYSLOG_IDENTIFIER=python3"
	}
	r := testharness.RunCmd(t, time.Minute, "", nil, testharness.NeedTool(t, "journalctl", "systemd"), "-D", j.Dir(), "-n", "1", "-o", "export", field)
	_, last, _ := strings.Cut(r.Stdout, "__CURSOR=")
	last, _, _ = strings.Cut(last, "\n")
	if r.Code != 0 || last == "" {
		t.Fatalf("journalctl found no last entry: %s", r.Output())
	}
	cursorFile := filepath.Join(d.hostState, "journal.cursor") // journal.CursorFile
	var cursor string
	for deadline := time.Now().Add(30 * time.Second); cursor != last && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		b, _ := os.ReadFile(cursorFile)
		cursor = strings.TrimSpace(string(b))
	}
	if cursor != last {
		t.Fatalf("the state directory's cursor is %q, not the last entry's %q, 30 s after writing:\n%s", cursor, last, d.log)
	}
	fi, _ := os.Stat(cursorFile)
	if cst := fi.Sys().(*syscall.Stat_t); int(cst.Uid) != sb.uid || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("cursor file owner %d mode %v; want uid %d and no access for others (UMask=%s)", cst.Uid, fi.Mode(), sb.uid, sb.umask)
	}
	t.Logf("cursor of the last entry saved in %s (host %s), mode %v: %.40s…", sb.stateDir, d.hostState, fi.Mode().Perm(), cursor)

	// Without the journal group the same daemon reads nothing; it must say so in a metric
	// (SpecWatchJournalFilesUnreadable), not just look healthy.
	noGroup := sb
	noGroup.groups, noGroup.groupNames = nil, nil
	d2 := startSandboxed(t, noGroup, j, varlog, match...)
	body := waitHTTP(t, "http://"+d2.addr+"/metrics", "specwatch_journal_bad_files_total ", 30*time.Second)
	bad, _ := testharness.MetricValue(body, "specwatch_journal_bad_files_total", "")
	for deadline := time.Now().Add(10 * time.Second); bad < 1 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		body = waitHTTP(t, "http://"+d2.addr+"/metrics", "", 5*time.Second)
		bad, _ = testharness.MetricValue(body, "specwatch_journal_bad_files_total", "")
	}
	if matched, _ := testharness.MetricValue(body, "specwatch_lines_total", `result="matched"`); bad < 1 || matched != 0 {
		t.Errorf("without systemd-journal: specwatch_journal_bad_files_total %v (want ≥ 1), matched %v (want 0)", bad, matched)
	}
	t.Logf("without systemd-journal: specwatch_journal_bad_files_total %v, nothing matched", bad)
}

// probe runs a shell script in the daemon's mount namespace as the daemon's uid and gid,
// with no capabilities and no_new_privs, with or without its supplementary groups.
func (d *sandboxed) probe(t *testing.T, sb sandbox, withGroups bool, script string, args ...string) string {
	t.Helper()
	nsenter := testharness.NeedTool(t, "nsenter", "util-linux")
	groups := "--clear-groups"
	if withGroups {
		groups = "--groups=" + strconv.Itoa(sb.groups[0])
	}
	argv := append([]string{"--target", strconv.Itoa(d.pid), "--mount", "--",
		"setpriv", "--reuid=" + strconv.Itoa(sb.uid), "--regid=" + strconv.Itoa(sb.gid), groups,
		"--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
		"/bin/sh", "-c", script, "probe"}, args...)
	r := testharness.RunCmd(t, time.Minute, "/", nil, nsenter, argv...)
	if r.Err != nil {
		t.Fatalf("probe in the sandbox: %v\n%s", r.Err, r.Output())
	}
	return r.Output()
}

// waitHTTP polls url until it answers 200 with want in its body (any body when want is "")
// and returns the body.
func waitHTTP(t *testing.T, url, want string, timeout time.Duration) string {
	t.Helper()
	client := http.Client{Timeout: 5 * time.Second}
	last := ""
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := client.Get(url)
		if err != nil {
			last = err.Error()
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		last = resp.Status + "\n" + string(b)
		if resp.StatusCode == http.StatusOK && strings.Contains(string(b), want) {
			return string(b)
		}
	}
	t.Fatalf("GET %s: no 200 with %q within %s; last: %.2000s", url, want, timeout, last)
	return ""
}

// unitSettings holds a unit's [Service] settings: for each key, the values left after systemd's
// rule that an empty assignment resets the list. A key assigned only "" is present and empty.
type unitSettings map[string][]string

func parseService(b []byte) unitSettings {
	s := unitSettings{}
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			section = line
		case section == "[Service]":
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				continue
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if v == "" {
				s[k] = []string{}
			} else {
				s[k] = append(s[k], v)
			}
		}
	}
	return s
}

// words are all the space-separated words of a list setting.
func (s unitSettings) words(k string) []string {
	var out []string
	for _, v := range s[k] {
		out = append(out, strings.Fields(v)...)
	}
	return out
}

func (s unitSettings) value(k string) string {
	if v := s[k]; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

func (s unitSettings) yes(k string) bool {
	switch strings.ToLower(s.value(k)) {
	case "yes", "true", "on", "1":
		return true
	}
	return false
}

// grantJournalGroup gives the private journal the ownership a host's journal has.
// systemd-tmpfiles (tmpfiles.d/systemd.conf: `z /var/log/journal 2755 root systemd-journal`)
// makes /var/log/journal setgid and owned by the group, so the directories journald creates
// in it (a namespace's <machine-id>.<ns>) and its files (mode 0640) get that group from the
// kernel. testjournal starts journald on a plain root:root /var/log/journal, so this applies
// the tmpfiles line and then what the setgid inheritance would have given; the files' modes are
// left as journald made them. Files journald creates from now on inherit the group by itself.
func grantJournalGroup(t *testing.T, j *testjournal.Journal, group string) (varlog string) {
	t.Helper()
	grp, err := user.LookupGroup(group)
	if err != nil {
		t.Fatalf("group %s: %v", group, err)
	}
	gid, _ := strconv.Atoi(grp.Gid)
	nsDir := j.Dir()
	journalDir := filepath.Dir(nsDir)
	varlog = filepath.Dir(journalDir)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chmod(varlog, 0o755)) // as /var/log on a host, whatever this test's umask
	for _, d := range []string{journalDir, nsDir} {
		fi, err := os.Stat(d)
		must(err)
		must(os.Chown(d, 0, gid))
		must(os.Chmod(d, fi.Mode().Perm()|os.ModeSetgid))
	}
	files, _ := filepath.Glob(filepath.Join(nsDir, "*.journal*"))
	if len(files) == 0 {
		t.Fatalf("no journal files in %s", nsDir)
	}
	for _, f := range files {
		must(os.Chown(f, -1, gid))
	}
	return varlog
}
