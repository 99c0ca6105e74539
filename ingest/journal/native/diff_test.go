package native

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/ingest/journal/sdjournal"
)

// The differential harness: every journal it is given is read to its end by this backend and
// by libsystemd (the sdjournal backend, the reference) and compared entry by entry: cursor,
// realtime stamp and the fields read (MESSAGE, _SYSTEMD_UNIT or else SYSLOG_IDENTIFIER,
// _HOSTNAME, CONTAINER_NAME or else CONTAINER_ID). The journals: systemd's own test journals (diff_systemd_test.go), files written
// by systemd-journal-remote in every mode (diff_remote_test.go), and damaged copies of small
// ones (diff_damage_test.go).

// diffCase is one journal: a directory as libsystemd opens it with sd_journal_open_directory.
type diffCase struct {
	name string
	dir  string
	// intact, for a damaged copy, is what the file held before the damage. Where libsystemd
	// returns nothing (it refuses a truncated file whole), the native reader may return the
	// readable head, but only entries of the intact file, in its order: it never misreads.
	intact []journaltest.Owned
	// Since, when set, starts both readers at this time instead of the head (sd_journal_seek_realtime_usec);
	// Units matches _SYSTEMD_UNIT.
	Since time.Time
	Units []string
	// want, when set, is how many entries libsystemd must return, the last with a message
	// of wantLen bytes: the journal holds what the test meant it to.
	want, wantLen int
	// recoverFor is how long the sdjournal backend may take to recover from an error
	// (readAllEntries); the harness waits defaultRecover.
	recoverFor time.Duration
}

const defaultRecover = 700 * time.Millisecond

// readAllEntries reads src to its end; the error is the one that ended it, nil at io.EOF.
// Reading to the end, Next returns nothing only while the source recovers from an error (the
// sdjournal backend reopens after a backoff, then skips an entry that fails twice): that is
// waited for, up to recoverFor each time (its first retry comes after 100 ms, the next after
// 200: a source still recovering after 700 ms is giving up); 0 waits not at all.
func readAllEntries(src journaltest.Source, limit int, recoverFor time.Duration) ([]journaltest.Owned, error) {
	var got []journaltest.Owned
	var e ingest.Entry
	var deadline time.Time
	for len(got) <= limit {
		ok, err := src.Next(&e, 100*time.Millisecond)
		if errors.Is(err, io.EOF) {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		if !ok {
			if deadline.IsZero() {
				deadline = time.Now().Add(recoverFor)
			}
			if time.Now().After(deadline) {
				return got, fmt.Errorf("still recovering after %v", recoverFor)
			}
			continue
		}
		deadline = time.Time{}
		got = append(got, journaltest.Own(&e))
	}
	return got, fmt.Errorf("more than %d entries", limit)
}

// errNoReference: libsystemd's tools read the journal only in part (diffJournal).
var errNoReference = errors.New("libsystemd's reading is known only in part")

// diffRead is one backend's reading of a case.
type diffRead struct {
	Entries []journaltest.Owned
	Stats   backend.Stats
	Warns   []string
	err     error
}

func readWith(b string, c diffCase) diffRead {
	var r diffRead
	o := backend.Options{Dir: c.dir, NoFollow: true, Head: c.Since.IsZero(), Since: c.Since, Units: c.Units,
		Warn: func(m string) { r.Warns = append(r.Warns, m) }}
	var src journaltest.Source
	var err error
	if b == sdjournal.Name {
		src, err = nonNilSource(sdjournal.Open(o, sdjournal.Options{}))
	} else {
		src, err = nonNilSource(Open(o))
	}
	if err != nil {
		r.err = err
		return r
	}
	r.Entries, r.err = readAllEntries(src, 1<<20, c.recoverFor)
	r.Stats = src.Stats()
	src.Close()
	return r
}

func nonNilSource[S journaltest.Source](s S, err error) (journaltest.Source, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

// diffJournal reads c with both backends and returns "" when they agree, else what differs.
// When the sdjournal backend gives up on the journal (it reopens after an error and, reading to
// the end, stops there), journalctl's reading is the reference: libsystemd's too, printing
// every entry up to the error.
func diffJournal(ref *refReader, c diffCase) (string, diffRead, diffRead) {
	if c.recoverFor == 0 {
		c.recoverFor = defaultRecover
	}
	sd, nat := ref.read(c), readWith(Name, c)
	if errors.Is(sd.err, errRefCrashed) {
		return "", nat, sd
	}
	if sd.err != nil {
		jc := journalctlRead(c)
		jc.Warns = append(jc.Warns, "sdjournal: "+sd.err.Error())
		if jc.err != nil && len(nat.Entries) > len(jc.Entries) {
			// Neither reads the whole journal: the sdjournal backend gave up, and journalctl
			// stopped with an error ("Invalid field." on a field name it will not print).
			// libsystemd's reading is then known only up to there: the native reader must
			// return those entries first; what it reads after is counted (errNoReference).
			d := compareReads(c, diffRead{Entries: nat.Entries[:len(jc.Entries)]}, jc)
			jc.err = errNoReference
			return d, nat, jc
		}
		sd = jc
		sd.err = nil
		return compareReads(c, nat, sd), nat, sd
	}
	d := compareReads(c, nat, sd)
	if d != "" && (sameButCursors(nat.Entries, sd.Entries) || skippedUndecodable(nat)) {
		// Reading to the end, the sdjournal backend formats a cursor only at the end of a
		// batch, stepping back to that entry with sd_journal_previous; in a file whose sequence
		// numbers go backwards that step lands elsewhere. journalctl has every cursor.
		//
		// A field libsystemd cannot decompress: enumerating an entry's fields
		// (sd_journal_enumerate_data, what journalctl prints from) fails the entry, and
		// journalctl skips it, as the native reader does; looking one field up
		// (sd_journal_get_data, what the go-systemd backend reads through) passes over the
		// object instead and returns the entry without it. The two libsystemd APIs disagree
		// there; journalctl's reading decides.
		jc := journalctlRead(c)
		if compareReads(c, nat, jc) == "" {
			return "", nat, sd
		}
	}
	return d, nat, sd
}

// skippedUndecodable says whether the native reader skipped an entry for a field it could not
// decompress.
func skippedUndecodable(nat diffRead) bool {
	for _, w := range nat.Warns {
		if strings.Contains(w, errCompression.Error()) {
			return true
		}
	}
	return false
}

// sameButCursors says whether two readings hold the same entries but for cursors.
func sameButCursors(a, b []journaltest.Owned) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Cursor, y.Cursor = "", ""
		if x != y {
			return false
		}
	}
	return true
}

// journalctlRead reads dir with journalctl -o export, up to where it stops.
func journalctlRead(c diffCase) diffRead {
	var r diffRead
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := []string{"-D", c.dir, "-o", "export", "--no-pager"}
	if !c.Since.IsZero() {
		args = append(args, "--since=@"+fmt.Sprintf("%d.%06d", c.Since.Unix(), c.Since.Nanosecond()/1000))
	}
	for _, u := range c.Units {
		args = append(args, "_SYSTEMD_UNIT="+u)
	}
	out, err := exec.CommandContext(ctx, "journalctl", args...).Output()
	if err != nil {
		r.Warns = append(r.Warns, "journalctl: "+err.Error())
		r.err = err
	}
	rd := ingest.NewReader(bytes.NewReader(out), ingest.ReaderOptions{})
	var e ingest.Entry
	for {
		err := rd.Next(&e)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				r.Warns = append(r.Warns, "decoding journalctl's output: "+err.Error())
			}
			return r
		}
		r.Entries = append(r.Entries, journaltest.Own(&e))
	}
}

func compareReads(c diffCase, nat, sd diffRead) string {
	if nat.err != nil && sd.err == nil {
		return fmt.Sprintf("native failed where libsystemd read %d entries: %v", len(sd.Entries), nat.err)
	}
	if len(sd.Entries) == 0 && len(nat.Entries) > 0 && c.intact != nil {
		// the readable head of a file libsystemd refuses: only the intact file's entries
		k := 0
		for _, e := range nat.Entries {
			for k < len(c.intact) && !sameEntry(e, c.intact[k]) {
				k++
			}
			if k == len(c.intact) {
				return fmt.Sprintf("native returned %s, not an entry of the intact file (in order)", short(e))
			}
			k++
		}
		return ""
	}
	n := min(len(nat.Entries), len(sd.Entries))
	for i := range n {
		if !sameEntry(nat.Entries[i], sd.Entries[i]) {
			return fmt.Sprintf("entry %d of %d/%d differs:\n  native    %s\n  sdjournal %s", i, len(nat.Entries), len(sd.Entries), short(nat.Entries[i]), short(sd.Entries[i]))
		}
	}
	if len(nat.Entries) != len(sd.Entries) {
		var extra journaltest.Owned
		if len(nat.Entries) > n {
			extra = nat.Entries[n]
		} else {
			extra = sd.Entries[n]
		}
		return fmt.Sprintf("native read %d entries, libsystemd %d; the first not in both: %s", len(nat.Entries), len(sd.Entries), short(extra))
	}
	return ""
}

// sameEntry compares two entries; the cursor only where libsystemd gave one (reading to the
// end, the sdjournal backend formats only some: ingest.Entry.Cursor may be empty then).
func sameEntry(nat, sd journaltest.Owned) bool {
	if sd.Cursor == "" {
		nat.Cursor = ""
	}
	return nat == sd
}

// diffWorkers is how many journals are compared at once.
const diffWorkers = 6

// runDiff compares every case and fails the test once per disagreeing journal; it logs how
// many were compared.
func runDiff(t *testing.T, set string, cases []diffCase) {
	t.Helper()
	requireSD(t)
	start := time.Now()
	// several readers at once: libsystemd's are mostly asleep in the sdjournal backend's
	// recovery backoff on damaged files
	type result struct {
		d       string
		nat, sd diffRead
	}
	results := make([]result, len(cases))
	next := make(chan int)
	var wg sync.WaitGroup
	for range diffWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ref := newRefReader()
			defer ref.Close()
			for i := range next {
				r := &results[i]
				r.d, r.nat, r.sd = diffJournal(ref, cases[i])
			}
		}()
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	bad, entries, crashed, partial := 0, 0, 0, 0
	for i, c := range cases {
		d, nat, sd := results[i].d, results[i].nat, results[i].sd
		if errors.Is(sd.err, errRefCrashed) {
			crashed++
			t.Logf("%s: %s: no reference: %v; native read %d entries", set, c.name, sd.err, len(nat.Entries))
		}
		if errors.Is(sd.err, errNoReference) {
			partial++
			t.Logf("%s: %s: %v (%d entries; %q); native read %d", set, c.name, sd.err, len(sd.Entries), firstN(sd.Warns, 2), len(nat.Entries))
		}
		entries += len(sd.Entries)
		if d == "" {
			d = silentSkip(c, nat)
		}
		if n := len(sd.Entries); d == "" && c.want > 0 && (n != c.want || len(sd.Entries[n-1].Message) != c.wantLen) {
			d = fmt.Sprintf("libsystemd read %d entries, want %d with a %d-byte message", n, c.want, c.wantLen)
		}
		if d != "" {
			bad++
			t.Errorf("%s: %s: %s (native stats %+v; warnings %q)", set, c.name, d, nat.Stats, firstN(nat.Warns, 3))
		}
	}
	t.Logf("%s: %d journals compared (%d entries from libsystemd; %d it aborted on, %d it read in part), %d disagree, in %v",
		set, len(cases), entries, crashed, partial, bad, time.Since(start).Round(time.Millisecond))
}

// silentSkip: a journal file holding entries that the native reader returns none of, without
// a word, is skipped silently.
func silentSkip(c diffCase, nat diffRead) string {
	if len(nat.Entries) > 0 || len(nat.Warns) > 0 || nat.err != nil {
		return ""
	}
	for _, p := range backend.JournalFiles(c.dir) {
		if st, err := os.Stat(p); err == nil && st.Size() > 0 && headerEntries(p) > 0 {
			return fmt.Sprintf("native returned nothing from %s, which says it holds %d entries, and said nothing", filepath.Base(p), headerEntries(p))
		}
	}
	return ""
}

// headerEntries is n_entries of the journal file at p, 0 when unreadable.
func headerEntries(p string) uint64 {
	f, err := os.Open(p)
	if err != nil {
		return 0
	}
	defer f.Close()
	var h [160]byte
	if _, err := io.ReadFull(f, h[:]); err != nil || string(h[:8]) != backend.JournalSignature {
		return 0
	}
	return uint64(h[152]) | uint64(h[153])<<8 | uint64(h[154])<<16 | uint64(h[155])<<24 |
		uint64(h[156])<<32 | uint64(h[157])<<40 | uint64(h[158])<<48 | uint64(h[159])<<56
}

// short formats an entry for a failure message, every field cut to 80 bytes.
func short(o journaltest.Owned) string {
	return fmt.Sprintf("{t=%d host=%.80q unit=%.80q container=%.80q msg=%.80q cursor=%q}", o.Time, o.Host, o.Unit, o.Container, o.Message, o.Cursor)
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("… %d more", len(s)-n))
	}
	return s
}

// oneFileDir puts the journal file data in a directory of its own, as name (which must end
// in .journal or .journal~), aged so that the file checker judges it at once.
func oneFileDir(t testing.TB, root, name string, data []byte) string {
	t.Helper()
	dir, err := os.MkdirTemp(root, "j")
	if err != nil {
		t.Fatal(err)
	}
	writeAged(t, filepath.Join(dir, name), data)
	return dir
}

// writeAged writes data to path as a sparse file (journal files are mostly zeros: hash
// tables, preallocated space), with times an hour back.
func writeAged(t testing.TB, path string, data []byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	const blk = 4096
	for off := 0; off < len(data); off += blk {
		b := data[off:min(off+blk, len(data))]
		if !allZero(b) {
			if _, err := f.WriteAt(b, int64(off)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// journalName is a name libsystemd opens: base with .journal added unless it has it.
func journalName(base string) string {
	if strings.HasSuffix(base, ".journal") || strings.HasSuffix(base, ".journal~") {
		return base
	}
	return "x.journal"
}
