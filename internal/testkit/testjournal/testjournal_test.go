package testjournal

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// exported reads dir with journalctl -o export and returns each entry's fields (binary
// values decoded), so the helper is checked by a reader independent of package ingest.
func exported(t *testing.T, dir string, match ...string) []map[string]string {
	t.Helper()
	out, err := exec.Command("journalctl", append([]string{"-D", dir, "-o", "export", "--no-pager"}, match...)...).Output()
	if err != nil {
		t.Fatalf("journalctl: %v", err)
	}
	var entries []map[string]string
	r := bufio.NewReader(bytes.NewReader(out))
	cur := map[string]string{}
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			break
		}
		line = line[:len(line)-1]
		if len(line) == 0 {
			entries = append(entries, cur)
			cur = map[string]string{}
			continue
		}
		if k, v, ok := bytes.Cut(line, []byte("=")); ok {
			cur[string(k)] = string(v)
			continue
		}
		var n [8]byte
		io.ReadFull(r, n[:])
		v := make([]byte, binary.LittleEndian.Uint64(n[:])+1)
		if _, err := io.ReadFull(r, v); err != nil {
			t.Fatal(err)
		}
		cur[string(line)] = string(v[:len(v)-1])
	}
	return entries
}

func TestJournaldWriteUnitsAndBinary(t *testing.T) {
	j := Start(t)
	if ok, err := j.UnitsSupported(); !ok {
		t.Fatalf("cgroups: %v", err)
	}
	bin := []byte("\x1b[1;36mcolour\x1b[0m bad utf8 \xff\xfe nul\x00 newline\nend")
	j.Write("sglang.service", "python3", []byte("first"))
	j.Write("", "llama-server", bin)
	j.Write("vllm.service", "vllm", []byte("third"))
	j.Sync()
	es := exported(t, j.Dir(), "SYSLOG_IDENTIFIER=python3", "+", "SYSLOG_IDENTIFIER=llama-server", "+", "SYSLOG_IDENTIFIER=vllm")
	if len(es) != 3 {
		t.Fatalf("got %d entries, want 3: %v", len(es), es)
	}
	host, _ := os.Hostname()
	want := []struct{ unit, msg string }{{"sglang.service", "first"}, {"", string(bin)}, {"vllm.service", "third"}}
	for i, w := range want {
		if es[i]["_SYSTEMD_UNIT"] != w.unit || es[i]["MESSAGE"] != w.msg || es[i]["_HOSTNAME"] != host {
			t.Errorf("entry %d: unit %q msg %q host %q, want %q %q %q", i, es[i]["_SYSTEMD_UNIT"], es[i]["MESSAGE"], es[i]["_HOSTNAME"], w.unit, w.msg, host)
		}
	}
}

func TestJournaldRotateVacuumKillRestart(t *testing.T) {
	j := Start(t)
	j.Write("a.service", "a", []byte("1"))
	j.Rotate()
	j.Write("a.service", "a", []byte("2"))
	j.Rotate()
	j.Write("a.service", "a", []byte("3"))
	j.Sync()
	if n := len(j.Files()); n != 3 {
		t.Fatalf("after two rotations %d files, want 3: %v", n, j.Files())
	}
	j.Vacuum(2)
	files := j.Files()
	if len(files) != 2 || filepath.Base(files[1]) != "system.journal" {
		t.Fatalf("after vacuum to 2 files: %v", files)
	}
	if es := exported(t, j.Dir(), "SYSLOG_IDENTIFIER=a"); len(es) != 2 || es[0]["MESSAGE"] != "2" {
		t.Fatalf("after vacuum: %v", es)
	}
	// Synchronize leaves the file offline; one more entry puts it online again, and a
	// journald killed then leaves it dirty. Poll journalctl until the entry is in the file.
	j.Write("a.service", "a", []byte("3b"))
	deadline := time.Now().Add(10 * time.Second)
	for len(exported(t, j.Dir(), "SYSLOG_IDENTIFIER=a")) < 3 {
		if time.Now().After(deadline) {
			t.Fatal("entry 3b never reached the file")
		}
		time.Sleep(10 * time.Millisecond)
	}
	pid := j.proc.Process.Pid
	j.Kill()
	if err := j.Send("a.service", "a", []byte("lost")); err == nil {
		t.Fatal("Send to a killed journald succeeded")
	}
	j.Restart()
	if j.proc.Process.Pid == pid {
		t.Fatal("Restart did not start a new process")
	}
	j.Write("a.service", "a", []byte("4"))
	j.Sync()
	es := exported(t, j.Dir(), "SYSLOG_IDENTIFIER=a")
	var got []string
	for _, e := range es {
		got = append(got, e["MESSAGE"])
	}
	if strings.Join(got, ",") != "2,3,3b,4" {
		t.Fatalf("messages after kill and restart: %v", got)
	}
	var dirty bool
	for _, f := range j.Files() {
		dirty = dirty || strings.HasSuffix(f, ".journal~")
	}
	if !dirty {
		t.Errorf("no *.journal~ after SIGKILL: %v", j.Files())
	}
}

// TestJournaldLeavesNothing checks that cleanup removes the sockets, drop-in, cgroups and
// processes, by running a journald in a subtest and looking after it ended.
func TestJournaldLeavesNothing(t *testing.T) {
	var j *Journal
	var pids []int
	t.Run("run", func(t *testing.T) {
		j = Start(t)
		j.Write("x.service", "x", []byte("x"))
		j.Sync()
		pids = append(pids, j.proc.Process.Pid)
		for _, s := range j.w.senders {
			pids = append(pids, s.cmd.Process.Pid)
		}
	})
	if t.Failed() || j == nil {
		return
	}
	for _, p := range []string{j.run, j.dropin, j.w.cgroot} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left behind", p)
		}
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			t.Errorf("process %d (%q) left behind", pid, b)
		}
	}
}

func TestBuildFile(t *testing.T) {
	dir := t.TempDir()
	path := BuildFile(t, dir, []Entry{
		{Host: "gpu07", Unit: "sglang.service", Identifier: "python3", Message: []byte("one")},
		{Host: "gpu08", Identifier: "llama-server", Message: []byte("two\nlines\x00")},
	})
	if filepath.Dir(path) != dir {
		t.Fatalf("path %s not in %s", path, dir)
	}
	es := exported(t, dir)
	if len(es) != 2 || es[0]["_SYSTEMD_UNIT"] != "sglang.service" || es[1]["MESSAGE"] != "two\nlines\x00" || es[1]["_HOSTNAME"] != "gpu08" {
		t.Fatalf("fixture read back as %v", es)
	}
	if es[0]["__REALTIME_TIMESTAMP"] != strconv.FormatInt(FixtureEpoch.UnixMicro(), 10) {
		t.Errorf("time %s, want FixtureEpoch", es[0]["__REALTIME_TIMESTAMP"])
	}
}

// TestReapStale: leftovers of a test binary killed before its cleanup are removed by the
// next Start; a running instance is left alone.
func TestReapStale(t *testing.T) {
	live := Start(t)
	dead := "swtestdeadbeef0000"
	run := "/run/systemd/journal." + dead
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(run, "socket"), nil, 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(run, old, old)
	slice := filepath.Join(filepath.Dir(live.w.cgroot), dead+".slice")
	if live.w.cgroot != "" {
		os.MkdirAll(filepath.Join(slice, "x.service"), 0o755)
	}
	reapStale()
	if _, err := os.Stat(run); err == nil {
		os.RemoveAll(run)
		t.Error("stale socket directory not removed")
	}
	if _, err := os.Stat(slice); live.w.cgroot != "" && err == nil {
		t.Error("stale cgroup slice not removed")
	}
	if _, err := os.Stat(live.SocketDir()); err != nil {
		t.Errorf("live instance's directory removed: %v", err)
	}
	live.Write("", "x", []byte("still alive"))
	live.Sync()
}
