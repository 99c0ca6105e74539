// Package journal is the systemd journal as a source of ingest.Entry values: Open chooses a
// backend (native, sdjournal or journalctl), opens it where Options.Start says, and returns a
// Source; CursorStore keeps the position across restarts. Reading the journal works on Linux
// only; elsewhere Open says so.
package journal

import (
	"fmt"
	"path"
	"runtime"
	"strings"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/journalctl"
	"github.com/specwatch/specwatch/ingest/journal/native"
	"github.com/specwatch/specwatch/ingest/journal/sdjournal"
)

// Options say which journal to follow, which entries, where to start and how to read.
type Options struct {
	// Dir is a directory of journal files (--journal-dir): a namespace's directory, or a
	// systemd-journal-remote directory holding many hosts. Files directly in it and in
	// machine-id subdirectories are read. Empty means the local system journal.
	Dir string
	// Namespace is the journal namespace to read (--journal-namespace, as journalctl's
	// --namespace): its <machine-id>.<namespace> directories, of the local journal or of Dir;
	// "*" reads every namespace. Empty reads the default namespace only.
	Namespace string
	// Units match _SYSTEMD_UNIT, completed as `journalctl -u` completes them (MangleUnit:
	// "sglang" is "sglang.service"); Identifiers match SYSLOG_IDENTIFIER. An entry matching any
	// of them, in either list, is read; with both lists empty every entry is.
	Units       []string
	Identifiers []string
	// Containers are shell globs (path.Match) on the entry's container (CONTAINER_NAME, else
	// CONTAINER_ID, as ingest.Entry.Container): with any, only entries whose container
	// matches one are read, of those the unit and identifier matches select. A glob is no
	// journal match, so the backends read those entries and drop the others after reading.
	Containers []string
	// Start is where reading begins; the zero value is Tail().
	Start Start
	// NoFollow reads up to the end of the journal and stops there: Next returns io.EOF
	// instead of waiting for new entries (for analyze; the daemon follows), and Entry.Cursor
	// may be empty (see ingest.Entry). Next(e, 0) on a following source is no end test:
	// journalctl answers asynchronously.
	NoFollow bool
	// Backend chooses the implementation; see Backend.
	Backend Backend
	// Warn receives what an operator should hear about (a vacuumed cursor, an unreadable
	// journal file, a reopen after a read error), one sentence each. It is called from the
	// goroutine calling Next. Nil discards them; Stats counts them either way.
	Warn func(msg string)
	// The backends' own options, read only by the backend in use.
	SDJournal  sdjournal.Options
	Journalctl journalctl.Options
}

// Stats counts what a Source did, for metrics and "why is data missing".
type Stats = backend.Stats

// Source yields journal entries in journal order, following new ones forever.
//
// Lifecycle: Open, then Next repeatedly, then Close, from one goroutine at a time (not safe
// for concurrent use). The sdjournal backend keeps its libsystemd handle on a thread of its
// own from Open to Close, as libsystemd requires one thread per handle, so the caller's
// goroutine is not tied to a thread. The caller applies each entry and only then records its
// cursor (CursorStore.Mark): with that order a restart resumes exactly after the last entry
// applied.
type Source interface {
	// Next fills e with the next entry, waiting at most wait for one. ok=false with a nil
	// error means nothing arrived in time (the caller does its housekeeping and calls again).
	// e's slices point into the source's buffers and are valid until the next call.
	// Transient failures (a corrupt entry, a journald restart, journalctl exiting) are
	// handled inside with bounded retries and counted, and a backend that gives up hands over
	// to the next; an error is returned only when the journal stays unreadable to every
	// backend, at the end with NoFollow (io.EOF), and after Close (ErrClosed).
	Next(e *ingest.Entry, wait time.Duration) (ok bool, err error)
	// Close releases the journal (and ends its thread, or kills journalctl). It is safe to
	// call more than once.
	Close() error
	// Stats returns the counters so far.
	Stats() Stats
}

// ErrClosed is returned by Next after Close.
var ErrClosed = backend.ErrClosed

// Open opens the journal as opts say and positions it; the first Next returns the first entry
// after that position. When the backend cannot open the journal, or gives up on it while
// reading, the others take over (see Options.chain). Errors name the directory.
func Open(opts Options) (Source, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("ingest: reading the systemd journal works on Linux only, not on %s (analyze reads exported files everywhere: journalctl -o export > file)", runtime.GOOS)
	}
	return openChain(opts, opts.chain(), openBackend)
}

// chain is the order in which Open tries the backends: the one chosen (Auto's choice for the
// directory), then the other available ones as fallbacks (see fallback). Among the fallbacks
// the native reader comes first, then journalctl, then libsystemd in process: on a damaged file
// libsystemd may abort on one of its assertions (systemd 252 on one of systemd's own corrupted
// test journals: generic_array_bisect), which a journalctl subprocess survives and this
// process would not. A backend asked for by name that this build cannot offer is an error,
// with no fallback: that is a configuration to fix.
func (o *Options) chain() []Backend {
	first := o.Backend
	if first == Auto {
		first = auto(o.Dir, o.Namespace)
	}
	if first == SDJournal && sdjournal.Available() != nil {
		return []Backend{SDJournal} // no fallback: its Open says how to get it
	}
	chain := []Backend{first}
	for _, b := range []Backend{Native, Journalctl, SDJournal} {
		if b != first && (b != SDJournal || sdjournal.Available() == nil) {
			chain = append(chain, b)
		}
	}
	return chain
}

// openBackend opens one backend as opts say.
func openBackend(b Backend, opts Options) (Source, error) {
	o := opts.backendOptions()
	switch b {
	case SDJournal:
		return nonNil(sdjournal.Open(o, opts.SDJournal))
	case Journalctl:
		return nonNil(journalctl.Open(o, opts.Journalctl))
	}
	return nonNil(native.Open(o))
}

// auto is Auto's choice for dir: Native, unless a journal file there has a format it does not
// know; then SDJournal when it is available, and Journalctl otherwise.
func auto(dir, ns string) Backend {
	switch {
	case native.ReadsAll(dir, ns):
		return Native
	case sdjournal.Available() == nil:
		return SDJournal
	}
	return Journalctl
}

// nonNil turns a backend's (*T)(nil) on error into a nil Source.
func nonNil[T Source](s T, err error) (Source, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

// SDJournalAvailable reports why the sdjournal backend cannot be used here (built without
// cgo, libsystemd.so.0 missing), or nil when it can.
func SDJournalAvailable() error { return sdjournal.Available() }

func (o *Options) validate() error {
	for _, m := range [][]string{o.Units, o.Identifiers} {
		for _, v := range m {
			if v == "" || strings.ContainsAny(v, "\n\x00") {
				return fmt.Errorf("ingest: invalid journal match value %q", v)
			}
		}
	}
	for _, g := range o.Containers {
		if _, err := path.Match(g, ""); err != nil || g == "" {
			return fmt.Errorf("ingest: invalid container glob %q: %v", g, err)
		}
	}
	if o.Backend < Auto || o.Backend > Native {
		return fmt.Errorf("ingest: unknown journal backend %v", o.Backend)
	}
	return nil
}

// backendOptions is what every backend reads of o.
func (o *Options) backendOptions() backend.Options {
	b := backend.Options{Dir: o.Dir, Namespace: o.Namespace, Units: mangleUnits(o.Units), Identifiers: o.Identifiers, Containers: o.Containers, NoFollow: o.NoFollow, Warn: o.Warn}
	b.Cursor, b.Head, b.Since = o.Start.cursor, o.Start.at == head, o.Start.since
	return b
}
