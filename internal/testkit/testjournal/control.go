package testjournal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"
)

// Sync returns once journald has written every entry sent before the call
// (io.systemd.Journal.Synchronize: it drains its socket queues first).
func (j *Journal) Sync() {
	j.tb.Helper()
	if err := j.call("io.systemd.Journal.Synchronize"); err != nil {
		j.tb.Fatal(err)
	}
}

// Rotate makes journald archive its active file and start a new one, and returns when done
// (io.systemd.Journal.Rotate, what `journalctl --rotate` calls). It synchronizes first:
// journald may serve the rotate request before datagrams already queued in its socket, and
// tests expect everything sent before Rotate to be in the archived file.
func (j *Journal) Rotate() {
	j.tb.Helper()
	for _, m := range []string{"io.systemd.Journal.Synchronize", "io.systemd.Journal.Rotate"} {
		if err := j.call(m); err != nil {
			j.tb.Fatal(err)
		}
	}
}

// Vacuum deletes the oldest archived files until at most files files remain, the active one
// counted, with journald's own code (`journalctl -D DIR --vacuum-files=N`). The active file
// is never deleted. A real retention policy deletes old files the same way, whether or not a reader
// has read them: tests decide when to call it.
func (j *Journal) Vacuum(files int) {
	j.tb.Helper()
	out, err := exec.Command("journalctl", "-D", j.dir, fmt.Sprintf("--vacuum-files=%d", files)).CombinedOutput()
	if err != nil {
		j.tb.Fatalf("testjournal: vacuum %s: %v: %s", j.dir, err, out)
	}
}

// Files lists the journal files in Dir, archived ones first, oldest first (archived names
// embed their first sequence number and time), the active system.journal last.
func (j *Journal) Files() []string {
	j.tb.Helper()
	names, err := filepath.Glob(filepath.Join(j.dir, "*.journal*"))
	if err != nil {
		j.tb.Fatal(err)
	}
	sort.Slice(names, func(a, b int) bool {
		ab, bb := filepath.Base(names[a]) == "system.journal", filepath.Base(names[b]) == "system.journal"
		if ab != bb {
			return bb
		}
		return names[a] < names[b]
	})
	return names
}

// call makes one varlink call without parameters and checks the reply for an error.
func (j *Journal) call(method string) error {
	path := filepath.Join(j.run, "io.systemd.journal")
	c, err := net.DialTimeout("unix", path, 10*time.Second)
	if err != nil {
		return fmt.Errorf("testjournal: %s: %w", method, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	req, _ := json.Marshal(map[string]any{"method": method, "parameters": map[string]any{}})
	if _, err := c.Write(append(req, 0)); err != nil {
		return fmt.Errorf("testjournal: %s: %w", method, err)
	}
	var reply []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(reply, []byte{0}) {
		n, err := c.Read(buf)
		reply = append(reply, buf[:n]...)
		if err != nil {
			return fmt.Errorf("testjournal: %s: reading reply: %w", method, err)
		}
	}
	var r struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(bytes.TrimRight(reply, "\x00"), &r); err != nil {
		return fmt.Errorf("testjournal: %s: bad reply %q: %w", method, reply, err)
	}
	if r.Error != "" {
		return fmt.Errorf("testjournal: %s: %s", method, r.Error)
	}
	return nil
}

// Log returns journald's own stderr so far, for diagnosing a failing test.
func (j *Journal) Log() string {
	b, _ := os.ReadFile(filepath.Join(j.root, "journald.log"))
	return string(b)
}
