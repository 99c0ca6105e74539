package ingest

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Backend selects how a JournalSource reads the journal.
type Backend int

const (
	// BackendAuto uses BackendNative, unless a journal file uses a compression it does not
	// decode (XZ or LZ4, from systemd before 246 or built so); then sd-journal when the binary
	// was built with cgo and libsystemd.so.0 loads, and journalctl otherwise.
	BackendAuto Backend = iota
	// BackendSDJournal reads the journal files in process through libsystemd (needs cgo).
	BackendSDJournal
	// BackendJournalctl runs `journalctl -o export --follow` and parses its output.
	BackendJournalctl
	// BackendNative reads the journal files itself (journal_native.go): no libsystemd, no
	// mapped pages in the RSS, no extra thread.
	BackendNative
)

func (b Backend) String() string {
	switch b {
	case BackendAuto:
		return "auto"
	case BackendSDJournal:
		return "sdjournal"
	case BackendJournalctl:
		return "journalctl"
	case BackendNative:
		return "native"
	}
	return fmt.Sprintf("Backend(%d)", int(b))
}

// ParseBackend reads a Backend from its String form, for flags and configuration files.
func ParseBackend(s string) (Backend, error) {
	for _, b := range []Backend{BackendAuto, BackendSDJournal, BackendJournalctl, BackendNative} {
		if s == b.String() {
			return b, nil
		}
	}
	return 0, fmt.Errorf("ingest: unknown journal backend %q (want auto, sdjournal, journalctl or native)", s)
}

// JournalOptions say which journal to follow, which entries, and where to start.
type JournalOptions struct {
	// Dir is a directory of journal files (--journal-dir): a namespace's directory, or a
	// systemd-journal-remote directory holding many hosts. Files directly in it and in
	// machine-id subdirectories are read. Empty means the local system journal.
	Dir string
	// Units match _SYSTEMD_UNIT; Identifiers match SYSLOG_IDENTIFIER. An entry matching any
	// of them, in either list, is read; with both lists empty every entry is.
	Units       []string
	Identifiers []string
	// Since is where to start when Cursor is empty; zero means the tail: only entries
	// written after OpenJournal.
	Since time.Time
	// Cursor resumes after the entry it names (from a CursorStore). When that entry is
	// gone (vacuumed), reading continues at the first entry after where it was, and
	// JournalStats.CursorMissing counts it: entries between may have been lost. A cursor
	// that does not parse is treated the same way, from Since or the tail.
	Cursor string
	// NoFollow reads up to the end of the journal and stops there: Next returns io.EOF
	// instead of waiting for new entries (for analyze; the daemon follows), and Entry.Cursor
	// may be empty (see Entry). Next(e, 0) on a following source is no end test: journalctl
	// answers asynchronously.
	NoFollow bool
	// Backend chooses the implementation; see Backend.
	Backend Backend
	// JournalctlPath is the journalctl binary for BackendJournalctl; "" means "journalctl"
	// on PATH.
	JournalctlPath string
	// TrimAfter bounds the journal pages a follow keeps in the process's RSS (sdjournal
	// backend only; the native backend maps nothing): libsystemd maps the journal files, and every page it read stays resident while
	// mapped. Each time these pages grew by TrimAfter bytes they are dropped from the RSS (not
	// from the page cache). Zero means DefaultTrimAfter; negative never drops them. Smaller
	// costs CPU: the pages still in use fault in again (see the README's benchmarks).
	TrimAfter int64
	// Warn receives what an operator should hear about (a vacuumed cursor, an unreadable
	// journal file, a reopen after a read error), one sentence each. It is called from the
	// goroutine calling Next. Nil discards them; Stats counts them either way.
	Warn func(msg string)
}

// JournalStats counts what a JournalSource did, for metrics and "why is data missing".
type JournalStats struct {
	Backend Backend // the backend in use, never BackendAuto
	// Entries is the number of entries Next returned.
	Entries int64
	// Reopens counts recoveries: the journal reopened (sdjournal) or journalctl restarted
	// after an error or an unexpected exit, continuing after the last entry returned.
	Reopens int64
	// Recycles counts handles closed and reopened on purpose, to release libsystemd's file
	// mappings (sdjournal; see recycleFollow). Not a fault.
	Recycles int64
	// Invalidations counts SD_JOURNAL_INVALIDATE (sdjournal) or directory scans that found
	// files added or removed (native): rotation, vacuuming, a journald restart. Always zero for
	// journalctl.
	Invalidations int64
	// CursorMissing counts resumptions whose saved entry no longer existed (vacuumed while
	// nobody read, or a cursor of another journal): entries may have been lost there.
	CursorMissing int64
	// LostEntries is the size of those losses: for each, the journal entries (of every unit)
	// between the vanished entry and the next one read, from their cursors' sequence numbers.
	// An upper bound on the followed units' lost lines; a loss across a recreated journal (new
	// sequence number id) adds nothing here but still counts in CursorMissing.
	LostEntries int64
	// Duplicates counts entries skipped because they had been returned already (the saved
	// entry itself after a resume or reopen is not counted: skipping it is the protocol).
	Duplicates int64
	// Unreadable counts entries skipped because their fields could not be read (a corrupt
	// object, a broken export record).
	Unreadable int64
	// BadFiles counts journal files found unreadable (truncated, not a journal file);
	// libsystemd and journalctl skip them and read the others.
	BadFiles int64
	// Waits counts the times Next blocked waiting for the journal to change; an idle follow
	// adds about one per wait period, which is how idle wake-ups are measured.
	Waits int64
}

// JournalSource yields journal entries in journal order, following new ones forever.
//
// Lifecycle: OpenJournal, then Next repeatedly, then Close, from one goroutine at a time (not
// safe for concurrent use). The sdjournal backend keeps its libsystemd handle on a thread of
// its own from OpenJournal to Close, as libsystemd requires one thread per handle, so the
// caller's goroutine is not tied to a thread. The caller applies each entry and only then
// records its cursor (CursorStore.Mark):
// with that order a restart resumes exactly after the last entry applied.
type JournalSource interface {
	// Next fills e with the next entry, waiting at most wait for one. ok=false with a nil
	// error means nothing arrived in time (the caller does its housekeeping and calls again).
	// e's slices point into the source's buffers and are valid until the next call.
	// Transient failures (a corrupt entry, a journald restart, journalctl exiting) are
	// handled inside with bounded retries and counted; an error is returned only when the
	// journal stays unreadable, at the end with NoFollow (io.EOF), and after Close
	// (ErrJournalClosed).
	Next(e *Entry, wait time.Duration) (ok bool, err error)
	// Close releases the journal (and ends its thread, or kills journalctl). It is safe to
	// call more than once.
	Close() error
	// Stats returns the counters so far.
	Stats() JournalStats
}

// ErrJournalClosed is returned by Next after Close.
var ErrJournalClosed = errors.New("ingest: journal source is closed")

// OpenJournal opens the journal as opts say and positions it; the first Next returns the
// first entry after that position. Errors name the directory.
func OpenJournal(opts JournalOptions) (JournalSource, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	switch opts.Backend {
	case BackendSDJournal:
		return openSDJournal(opts)
	case BackendJournalctl:
		return openJournalctl(opts)
	case BackendNative:
		return openNative(opts)
	}
	if nativeReadsAll(&opts) {
		return openNative(opts)
	}
	if sdJournalAvailable() == nil {
		return openSDJournal(opts)
	}
	return openJournalctl(opts)
}

// SDJournalAvailable reports why the sdjournal backend cannot be used here (built without
// cgo, libsystemd.so.0 missing), or nil when it can.
func SDJournalAvailable() error { return sdJournalAvailable() }

func (o *JournalOptions) validate() error {
	for _, m := range [][]string{o.Units, o.Identifiers} {
		for _, v := range m {
			if v == "" || strings.ContainsAny(v, "\n\x00") {
				return fmt.Errorf("ingest: invalid journal match value %q", v)
			}
		}
	}
	if o.Backend < BackendAuto || o.Backend > BackendNative {
		return fmt.Errorf("ingest: unknown journal backend %v", o.Backend)
	}
	return nil
}

// DefaultTrimAfter is JournalOptions.TrimAfter's default: following 2,000 lines/s, the
// daemon's peak RSS stays under 30 MB (bench/live_test.go).
const DefaultTrimAfter = 4 << 20

// trimAfter resolves TrimAfter: 0 never trims.
func (o *JournalOptions) trimAfter() int64 {
	switch {
	case o.TrimAfter == 0:
		return DefaultTrimAfter
	case o.TrimAfter < 0:
		return 0
	}
	return o.TrimAfter
}

// startName says where a source starts when there is no cursor to resume from: Since, or the
// tail.
func (o *JournalOptions) startName() string {
	if !o.Since.IsZero() {
		return o.Since.Format(time.RFC3339Nano)
	}
	return "the tail"
}

// invalidCursor counts and reports a saved cursor that does not parse, and forgets it: the
// source starts from startName instead.
func (o *JournalOptions) invalidCursor(st *JournalStats) {
	st.CursorMissing++
	o.warn("%s: saved cursor %q is not a valid journal cursor; starting from %s instead", o.name(), o.Cursor, o.startName())
	o.Cursor = ""
}

// name is how errors and warnings name the journal.
func (o *JournalOptions) name() string {
	if o.Dir == "" {
		return "the system journal"
	}
	return "journal " + o.Dir
}

// matches returns the journal matches for opts: values of one field are ORed by the
// journal itself; "+" separates the Units group from the Identifiers group (OR).
func (o *JournalOptions) matches() []string {
	var m []string
	for _, u := range o.Units {
		m = append(m, "_SYSTEMD_UNIT="+u)
	}
	if len(o.Units) > 0 && len(o.Identifiers) > 0 {
		m = append(m, "+")
	}
	for _, id := range o.Identifiers {
		m = append(m, "SYSLOG_IDENTIFIER="+id)
	}
	return m
}

func (o *JournalOptions) warn(format string, args ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, args...))
	}
}
