package backend

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// FileChecker finds journal files that libsystemd and journalctl would skip without a word
// (truncated, not a journal at all, not readable by this user), so that the operator hears
// about them; the rest of the directory is read either way. Only the header is checked (systemd.io/JOURNAL_FILE_FORMAT):
// signature, and header plus arena within the file. Damage deeper in a file is met by
// libsystemd while reading and handled there.
type FileChecker struct {
	Dirs      []string
	Namespace string            // which <machine-id>.<namespace> subdirectories count (JournalFilesIn)
	decided   map[string]uint64 // path → inode already judged (good, or bad and reported)
	lastScan  time.Time
}

// JournalYoung is how long a file that does not read as a journal file yet may still be in the
// middle of being created (journald writes the header after creating the file): it is judged
// at a later scan.
const JournalYoung = 5 * time.Second

// FileRecheck is how often an idle source looks for new bad files; rotation and vacuuming
// also trigger a scan in the sdjournal backend.
const FileRecheck = time.Minute

// NewFileChecker checks dir, or the local journal's directories when dir is empty.
func NewFileChecker(dir string) *FileChecker { return NewNamespaceChecker(dir, "") }

// NewNamespaceChecker checks the journal namespace ns ("" the default one, "*" all) of dir, or
// of the local journal when dir is empty: its directories are <machine-id>.<ns>, as
// journalctl --namespace reads them.
func NewNamespaceChecker(dir, ns string) *FileChecker {
	c := &FileChecker{decided: map[string]uint64{}, Namespace: ns}
	if dir != "" {
		c.Dirs = []string{dir}
	} else if id, err := os.ReadFile("/etc/machine-id"); err == nil {
		sub := strings.TrimSpace(string(id))
		if ns != "" && ns != "*" {
			sub += "." + ns
		}
		for _, root := range []string{"/var/log/journal", "/run/log/journal"} {
			if ns == "*" {
				c.Dirs = append(c.Dirs, root)
				continue
			}
			c.Dirs = append(c.Dirs, filepath.Join(root, sub))
		}
	}
	return c
}

// Scan checks files not judged yet and returns one sentence per newly found bad file.
func (c *FileChecker) Scan(now time.Time) (bad []string) {
	c.lastScan = now
	present := map[string]bool{}
	for _, dir := range c.Dirs {
		for _, path := range JournalFilesIn(dir, c.Namespace) {
			present[path] = true
			var st syscall.Stat_t
			if syscall.Stat(path, &st) != nil || c.decided[path] == st.Ino {
				continue
			}
			err := CheckJournalFile(path, st.Size)
			if err != nil && !errors.Is(err, fs.ErrPermission) && now.Sub(time.Unix(st.Mtim.Unix())) < JournalYoung {
				continue // possibly being created right now: judge it at a later scan
			}
			c.decided[path] = st.Ino
			if err != nil {
				bad = append(bad, err.Error())
			}
		}
	}
	for path := range c.decided {
		if !present[path] {
			delete(c.decided, path)
		}
	}
	return bad
}

// Due reports whether the periodic rescan is due.
func (c *FileChecker) Due(now time.Time) bool { return now.Sub(c.lastScan) >= FileRecheck }

// JournalFiles lists the journal files libsystemd would open for dir
// (sd_journal_open_directory): *.journal and *.journal~ in it and in its machine-id
// subdirectories; not in <machine-id>.<namespace> ones, which are other namespaces' journals.
func JournalFiles(dir string) []string { return JournalFilesIn(dir, "") }

// JournalFilesIn is JournalFiles with the subdirectories of namespace ns: <machine-id>.<ns>
// instead of <machine-id> ("" the default namespace, "*" every namespace).
func JournalFilesIn(dir, ns string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, ".journal") || strings.HasSuffix(name, ".journal~"):
			out = append(out, filepath.Join(dir, name))
		case e.IsDir() && len(name) >= 32 && isHex(name[:32]) && inNamespace(name[32:], ns):
			for _, sub := range JournalFilesIn(filepath.Join(dir, name), ns) {
				if filepath.Dir(sub) == filepath.Join(dir, name) {
					out = append(out, sub)
				}
			}
		}
	}
	return out
}

// inNamespace says whether a machine-id directory with suffix rest ("" or ".<namespace>")
// belongs to namespace ns.
func inNamespace(rest, ns string) bool {
	switch ns {
	case "":
		return rest == ""
	case "*":
		return rest == "" || rest[0] == '.'
	}
	return rest == "."+ns
}

func isHex(s string) bool {
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Header layout of a journal file: signature at 0, header_size at 88, arena_size at 96; 240
// bytes is the smallest header any systemd wrote.
const (
	JournalSignature = "LPKSHHRH"
	JournalHeaderMin = 240
)

// CheckJournalFile returns an error naming path when its header says it is no journal file
// or larger than it is (cut by a full disk, a crash while copying, a careless truncate).
func CheckJournalFile(path string, size int64) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("journal file %s unreadable, skipped: %w", path, err)
	}
	defer f.Close()
	var h [104]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return fmt.Errorf("journal file %s is truncated (%d bytes, shorter than a header), skipped", path, size)
	}
	if string(h[:8]) != JournalSignature {
		return fmt.Errorf("journal file %s is not a journal file (bad signature), skipped", path)
	}
	hs, as := binary.LittleEndian.Uint64(h[88:]), binary.LittleEndian.Uint64(h[96:])
	if hs < JournalHeaderMin || hs > uint64(size) || as > uint64(size)-hs {
		return fmt.Errorf("journal file %s is truncated or damaged (header says %d+%d bytes, file has %d), skipped", path, hs, as, size)
	}
	return nil
}
