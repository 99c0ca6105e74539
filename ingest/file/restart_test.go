package file

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/containerlog"
)

// A restart resumes every file after the last line marked and flushed; lines marked but not
// flushed are read again only if the flush did not happen (a crash re-reads, never skips).
func TestRestartResumes(t *testing.T) {
	f := followIn(t, Options{}, "*.log")
	f.write("a.log", 1, 10)
	f.read(6)
	f = f.restart(true)
	f.write("a.log", 11, 12)
	f.drain()
	f.exactlyOnce(12)
}

// Rotated and truncated while specwatch was down: the renamed file resumes by its inode, the
// new one starts at 0, and a copytruncate copy resumes where the original was.
func TestRestartAfterRotationWhileDown(t *testing.T) {
	f := followIn(t, Options{}, "r.log*", "c.log*")
	f.write("r.log", 1, 10)
	f.write("c.log", 101, 110)
	f.read(10)
	must(t, f.store.Flush())
	f.src.Close()
	must(t, os.Rename(f.path("r.log"), f.path("r.log.1")))
	f.write("r.log", 11, 15)
	b, _ := os.ReadFile(f.path("c.log"))
	must(t, os.WriteFile(f.path("c.log.1"), b, 0o644))
	must(t, os.Truncate(f.path("c.log"), 0))
	f.write("c.log", 111, 115)
	f = f.restart(false)
	f.drain()
	want := map[string]bool{}
	for i := 1; i <= 15; i++ {
		want[lineName(i)] = true
		want[lineName(100+i)] = true
	}
	seen := map[string]int{}
	for _, l := range f.lines {
		seen[l]++
	}
	for l := range want {
		if seen[l] != 1 {
			t.Errorf("%s read %d times", l, seen[l])
		}
	}
	if len(f.lines) != len(want) {
		t.Errorf("%d lines, want %d", len(f.lines), len(want))
	}
}

func lineName(i int) string { return "line " + strings.Repeat("0", 4-len(itoa(i))) + itoa(i) }

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// A saved position whose inode now holds another file (deleted, the inode reused) is not
// resumed: the fingerprint differs, so the new file is read from its start.
func TestRestartInodeReuse(t *testing.T) {
	f := newFollower(t, t.TempDir(), Options{})
	f.write("a.log", 1, 3)
	fi, err := os.Stat(f.path("a.log"))
	must(t, err)
	dev, ino, _ := devIno(fi)
	// What a daemon saved for an earlier file with the same device and inode, 20 bytes in.
	old := savedFile{Version: 1, Files: []Position{{Path: f.path("a.log"), Identity: Identity{Dev: dev, Ino: ino, FPLen: 10, FP: 12345}, Offset: 20, Done: 20}}}
	b, _ := json.Marshal(old)
	must(t, os.WriteFile(filepath.Join(f.dir, "state", PositionsFile), b, 0o600))
	f = newFollower(t, f.dir, Options{Globs: []string{f.path("*.log")}})
	f.drain()
	f.exactlyOnce(3)
}

func TestStoreLoadRefusesDamage(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir)
	if _, existed, err := s.Load(); err != nil || existed {
		t.Fatalf("no file: %v %v", existed, err)
	}
	for _, bad := range []string{"not json", `{"version":2,"files":[]}`, `{"version":1,"files":[{"offset":-1}]}`} {
		must(t, os.WriteFile(s.Path(), []byte(bad), 0o600))
		if _, _, err := s.Load(); err == nil {
			t.Errorf("%q loaded", bad)
		}
	}
	for _, c := range []string{"", "x", "1", "1:", "1:2:3", "1:2:3:4:5", "a:1"} {
		if _, _, ok := parseCursor([]byte(c)); ok {
			t.Errorf("cursor %q parsed", c)
		}
	}
	id, p, ok := parseCursor(appendCursor(nil, 7, 10, 30, 1))
	if !ok || id != 7 || p.Offset != 10 || p.Done != 30 || p.Skip != 1 {
		t.Errorf("round trip: %d %+v %v", id, p, ok)
	}
}

// Kubernetes and Docker logs: decoded by their format, the container's identity from the
// path (and config.v2.json), the preset's filter applied before any file is opened for reading.
func TestContainerFiles(t *testing.T) {
	dir := t.TempDir()
	pod := filepath.Join(dir, "pods", "inference_sglang-0_uid1", "engine")
	other := filepath.Join(dir, "pods", "kube-system_coredns-1_uid2", "coredns")
	const id = "3f4e8a1b2c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7"
	ctr := filepath.Join(dir, "containers", id)
	for _, d := range []string{pod, other, ctr} {
		must(t, os.MkdirAll(d, 0o755))
	}
	must(t, os.WriteFile(filepath.Join(pod, "0.log"), []byte("2026-11-20T09:00:00.5Z stderr P [TP0] Decode \n2026-11-20T09:00:00.6Z stdout F hello\n2026-11-20T09:00:00.7Z stderr F batch\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(other, "0.log"), []byte("2026-11-20T09:00:00Z stdout F dns\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ctr, id+"-json.log"), []byte(`{"log":"docker line\n","stream":"stderr","time":"2026-11-20T09:00:01Z"}`+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ctr, "config.v2.json"), []byte(`{"Name":"/vllm-0","Config":{"Image":"vllm/vllm-openai:v0.11"}}`), 0o644))
	f := newFollower(t, dir, Options{
		Globs:   []string{filepath.Join(dir, "pods/*/*/*.log"), filepath.Join(dir, "containers/*/*-json.log")},
		Resolve: func(p string, m *containerlog.Meta) { _ = containerlog.DockerName(p, m) },
		Accept:  func(_ string, m containerlog.Meta) bool { return m.Namespace != "kube-system" },
	})
	var got []string
	var e ingest.Entry
	for i := 0; i < 10; i++ {
		if ok, _ := f.src.Next(&e, 0); ok {
			got = append(got, string(e.Container)+"|"+string(e.Namespace)+"|"+string(e.Pod)+"|"+string(e.Message)+"|"+itoa(int(e.Time/1000)))
		}
	}
	want := []string{"engine|inference|sglang-0|hello|1795165200600", "engine|inference|sglang-0|[TP0] Decode batch|1795165200500", "vllm-0|||docker line|1795165201000"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("entries\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Killed while a stderr line was half read and a stdout line after its front was applied: the
// restart rebuilds the stderr line whole and does not apply the stdout line again.
func TestRestartInsidePartialLine(t *testing.T) {
	dir := t.TempDir()
	pod := filepath.Join(dir, "ns_pod_uid", "c")
	must(t, os.MkdirAll(pod, 0o755))
	log := filepath.Join(pod, "0.log")
	must(t, os.WriteFile(log, []byte("2026-11-20T09:00:00Z stderr P front \n2026-11-20T09:00:00Z stdout F applied\n"), 0o644))
	f := newFollower(t, dir, Options{Globs: []string{filepath.Join(dir, "*/*/*.log")}})
	f.drain()
	f = f.restart(true)
	w, _ := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	w.WriteString("2026-11-20T09:00:00Z stderr F back\n")
	w.Close()
	f.drain()
	if strings.Join(f.lines, "|") != "applied|front back" {
		t.Fatalf("lines %q", f.lines)
	}
}

// Stopped between a copytruncate's truncation and the scan that finds the copy: the truncated
// file's old position is saved as an orphan, so after the restart the copy resumes there
// instead of from its start (seen as 891 lines applied twice in TestFilesExactlyOnce).
func TestRestartBetweenTruncationAndCopy(t *testing.T) {
	f := followIn(t, Options{}, "engine.log*")
	f.write("engine.log", 1, 10)
	f.read(10)
	f.write("engine.log", 11, 20) // not read before the rotation
	b, err := os.ReadFile(f.path("engine.log"))
	must(t, err)
	must(t, os.Truncate(f.path("engine.log"), 0))
	f.write("engine.log", 21, 25)
	f.read(5) // the truncation is seen and lines 21-25 read
	if st := f.src.Stats(); st.Truncated != 1 || st.CopiesRead != 0 {
		t.Fatalf("stats %+v, want the truncation seen and no copy read", st)
	}
	// The copy, made before the truncation, as the stopped daemon's next scan would have
	// found it: written only now, so that no scan of this one finds it.
	must(t, os.WriteFile(f.path("engine.log.1"), b, 0o644))
	f = f.restart(true)
	f.drain()
	f.exactlyOnce(25)
}

// Truncated while specwatch was down and still empty when it restarts: the copy resumes at the
// original's position (an empty original is no start for a copy to be parked behind).
func TestRestartTruncatedOriginalStillEmpty(t *testing.T) {
	f := followIn(t, Options{}, "c.log*")
	f.write("c.log", 1, 10)
	f.read(10)
	must(t, f.store.Flush())
	f.src.Close()
	f.write("c.log", 11, 15)
	b, _ := os.ReadFile(f.path("c.log"))
	must(t, os.WriteFile(f.path("c.log.1"), b, 0o644))
	must(t, os.Truncate(f.path("c.log"), 0))
	f = f.restart(false)
	f.drain()
	f.write("c.log", 16, 20)
	f.drain()
	f.exactlyOnce(20)
}

// TestRestartDamagedDone: a positions file whose entry says records were applied far past the
// file's end (done: 10^15, as a corrupted or hand-edited file can) is not believed: the file
// (a CRI log, whose resumption skips records up to done) resumes at the entry's offset, every
// later line is read, and the damage is counted (issue 27, item 7: 0 of 100 lines read,
// nothing said).
func TestRestartDamagedDone(t *testing.T) {
	cri := func(f *follower, from, to int) {
		w, err := os.OpenFile(f.path("a.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		must(t, err)
		defer w.Close()
		for i := from; i <= to; i++ {
			fmt.Fprintf(w, "2026-11-20T09:00:00.000000000Z stdout F line %04d\n", i)
		}
	}
	f := followIn(t, Options{}, "*.log")
	cri(f, 1, 10)
	f.drain()
	must(t, f.store.Flush())
	b, err := os.ReadFile(f.store.Path())
	must(t, err)
	damaged := regexp.MustCompile(`"done":\d+`).ReplaceAllString(string(b), `"done":1000000000000000`)
	if damaged == string(b) {
		t.Fatalf("positions %s: no done to damage", b)
	}
	must(t, os.WriteFile(f.store.Path(), []byte(damaged), 0o600))
	f = f.restart(false)
	cri(f, 11, 110)
	f.drain()
	f.exactlyOnce(110)
	if st := f.src.Stats(); st.DamagedPositions != 1 {
		t.Errorf("stats %+v: want the damaged position counted", st)
	}
}

// TestRestartAcrossRenameKeepsUnit: a plain log renamed by its rotation (app.log → app.log.1,
// both under the globs) keeps the name its lines were labelled with, before and after a
// restart, and so does a copytruncate copy: a rotated file never becomes a second series
// (issue 27, item 11: app.log and app.log.1 both summed in fleet tok/s until expiry).
func TestRestartAcrossRenameKeepsUnit(t *testing.T) {
	f := followIn(t, Options{}, "app.log*")
	f.write("app.log", 1, 5)
	f.drain()
	must(t, os.Rename(f.path("app.log"), f.path("app.log.1")))
	f.write("app.log.1", 6, 8) // the writer still holds the renamed file
	f.drain()
	f = f.restart(true)
	f.units = nil
	f.write("app.log.1", 9, 10)
	f.write("app.log", 11, 12)
	f.drain()
	f.exactlyOnce(12)
	for i, u := range f.units {
		if u != f.path("app.log") {
			t.Errorf("line %d after the restart: unit %q, want %q", i, u, f.path("app.log"))
		}
	}
	// copytruncate: the copy's lines are the original's.
	f.units = nil
	must(t, os.WriteFile(f.path("app.log.2"), mustRead(t, f.path("app.log")), 0o644))
	must(t, os.Truncate(f.path("app.log"), 0))
	f.write("app.log", 13, 14)
	f.now = f.now.Add(time.Second)
	f.drain()
	f.exactlyOnce(14)
	for i, u := range f.units {
		if u != f.path("app.log") {
			t.Errorf("line %d after a copytruncate: unit %q, want %q", i, u, f.path("app.log"))
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	return b
}
