package testjournal

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// JournalRemote is where Debian installs systemd-journal-remote (package systemd-journal-remote).
const JournalRemote = "/lib/systemd/systemd-journal-remote"

// Entry is one journal entry of a fixture. Empty strings leave their field out, so an entry
// without Unit has no _SYSTEMD_UNIT, as for a process outside any service.
type Entry struct {
	// Time is the entry's realtime stamp; zero means FixtureEpoch plus one millisecond per
	// entry index, which keeps fixtures reproducible.
	Time       time.Time
	Host       string // _HOSTNAME
	Unit       string // _SYSTEMD_UNIT
	Identifier string // SYSLOG_IDENTIFIER
	Message    []byte // MESSAGE, any bytes
	// Fields are written after the others, in order; repeats are allowed.
	Fields []Field
}

// Field is one extra journal field.
type Field struct {
	Name  string
	Value []byte
}

// FixtureEpoch is the realtime stamp of entry 0 of a fixture whose entries carry no time.
var FixtureEpoch = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// fixtureBoot is the _BOOT_ID of fixture entries (journal-remote requires one), booted a day
// before FixtureEpoch.
const fixtureBoot = "0b3c6f0f4a6f4d6c9c2b5d8e1f2a3b4c"

var fixtureBootTime = FixtureEpoch.Add(-24 * time.Hour)

// BuildFile writes entries into a new journal file in dir with systemd-journal-remote and
// returns its path. The file is a real journal: cursors, hash tables and entry arrays are
// journald's own, so readers see exactly what they would see on a host.
func BuildFile(tb testing.TB, dir string, entries []Entry) string {
	tb.Helper()
	return BuildFileFunc(tb, dir, len(entries), func(i int, e *Entry) { *e = entries[i] })
}

// BuildFileFunc is BuildFile for large fixtures: gen fills entry i (0 ≤ i < n) into e, which
// is reset before each call, so a million entries never sit in memory at once. The file is
// named fixture-N.journal, N counting the files already in dir. systemd-journal-remote takes
// about 40 µs per entry here (its event loop handles one line per iteration).
func BuildFileFunc(tb testing.TB, dir string, n int, gen func(i int, e *Entry)) string {
	tb.Helper()
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 1<<20)
		var e Entry
		var err error
		for i := 0; i < n && err == nil; i++ {
			e = Entry{}
			gen(i, &e)
			err = WriteExport(w, &e, i)
		}
		if err == nil {
			err = w.Flush()
		}
		pw.CloseWithError(err)
	}()
	defer pr.Close()
	return BuildFileFromExport(tb, dir, pr)
}

// BuildFileFromExport turns journal export text (journalctl -o export, or WriteExport) into
// a new journal file in dir and returns its path. __CURSOR and other __ fields of the input
// are ignored: journal-remote assigns its own cursors.
func BuildFileFromExport(tb testing.TB, dir string, export io.Reader) string {
	tb.Helper()
	return BuildFileMode(tb, dir, export, Mode{Compact: true, Keyed: true})
}

// Mode is how systemd-journal-remote writes a file: the formats this machine's systemd
// (252) can write. Compact (32-bit offsets, systemd ≥ 252's default) and Keyed (siphash
// with the file id, ≥ 246) are set through SYSTEMD_JOURNAL_COMPACT and
// SYSTEMD_JOURNAL_KEYED_HASH; Compress stores fields of 512 bytes and more compressed
// (zstd, Debian's default).
type Mode struct{ Compact, Keyed, Compress bool }

func (m Mode) String() string {
	return fmt.Sprintf("compact=%v,keyed=%v,compress=%v", m.Compact, m.Keyed, m.Compress)
}

// Modes are every Mode.
func Modes() []Mode {
	var out []Mode
	for i := range 8 {
		out = append(out, Mode{Compact: i&1 != 0, Keyed: i&2 != 0, Compress: i&4 != 0})
	}
	return out
}

// BuildFileMode is BuildFileFromExport writing the file in mode m.
func BuildFileMode(tb testing.TB, dir string, export io.Reader, m Mode) string {
	tb.Helper()
	if _, err := os.Stat(JournalRemote); err != nil {
		tb.Skipf("testjournal: %s not installed (Debian: apt-get install systemd-journal-remote): %v", JournalRemote, err)
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*.journal"))
	path := filepath.Join(dir, fmt.Sprintf("fixture-%d.journal", len(old)))
	yn := map[bool]string{false: "no", true: "yes"}
	cmd := exec.Command(JournalRemote, "--output="+path, "--split-mode=none", "--compress="+yn[m.Compress], "--seal=no", "-")
	cmd.Env = append(os.Environ(), "SYSTEMD_JOURNAL_COMPACT="+yn[m.Compact], "SYSTEMD_JOURNAL_KEYED_HASH="+yn[m.Keyed])
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stderr = export, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("testjournal: building %s: %v: %s", path, err, stderr.Bytes())
	}
	return path
}

// WriteExport writes e as one record of the journal export format
// (systemd.io/JOURNAL_EXPORT_FORMATS); index only sets the default time.
// Values holding a newline or other control bytes use the binary form, as journalctl does.
func WriteExport(w *bufio.Writer, e *Entry, index int) error {
	t := e.Time
	if t.IsZero() {
		t = FixtureEpoch.Add(time.Duration(index) * time.Millisecond)
	}
	// One boot for all fixture entries, so the monotonic clock must agree with the realtime
	// one: libsystemd orders entries of one boot by it, across files too.
	mono := t.Sub(fixtureBootTime).Microseconds()
	if mono <= 0 {
		mono = 1 + int64(index)
	}
	var num [20]byte
	w.WriteString("__REALTIME_TIMESTAMP=")
	w.Write(strconv.AppendInt(num[:0], t.UnixMicro(), 10))
	w.WriteString("\n__MONOTONIC_TIMESTAMP=")
	w.Write(strconv.AppendInt(num[:0], mono, 10))
	w.WriteString("\n_BOOT_ID=" + fixtureBoot + "\n")
	field(w, "_HOSTNAME", e.Host)
	field(w, "_SYSTEMD_UNIT", e.Unit)
	field(w, "SYSLOG_IDENTIFIER", e.Identifier)
	writeField(w, "MESSAGE", e.Message)
	for _, f := range e.Fields {
		writeField(w, f.Name, f.Value)
	}
	return w.WriteByte('\n')
}

func field(w *bufio.Writer, name, value string) {
	if value != "" {
		writeField(w, name, []byte(value))
	}
}

func writeField(w *bufio.Writer, name string, value []byte) {
	if !needsBinary(value) {
		w.WriteString(name)
		w.WriteByte('=')
		w.Write(value)
		w.WriteByte('\n')
		return
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(value)))
	w.WriteString(name)
	w.WriteByte('\n')
	w.Write(n[:])
	w.Write(value)
	w.WriteByte('\n')
}

// needsBinary follows journalctl: control characters other than tab force the binary form.
func needsBinary(v []byte) bool {
	for _, c := range v {
		if c < ' ' && c != '\t' {
			return true
		}
	}
	return false
}
