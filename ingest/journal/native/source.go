//go:build linux

package native

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
)

// Source reads journal files itself (jfile), without libsystemd or journalctl: entries
// of every file merged in journal order, the matches applied per entry, cursors in
// sd_journal_get_cursor's exact format (so a CursorStore's cursor moves between backends).
//
// Following: each poll re-reads the header of the files journald may still write (a pread of
// 184 bytes) and reads what was linked since; inotify (dirwatch) says when a file changed or
// the directory did (rotation, vacuuming, a journald restart). A file journald no longer
// writes (renamed to an archive name, marked dirty, deleted) is read to its end and closed.
//
// Order across files: journald links entries one at a time, in the order of their monotonic
// stamps, but the headers of several files are read one after the other; an entry of one file
// could then be returned before an older one of another file that the snapshot missed, and a
// restart saved in between would skip the older one. So with two or more files being written
// (the system journal and a user's), each poll reads their headers twice and returns only
// entries up to the newest stamp the first round saw: all of those were linked before the
// second round began (poll).
//
// Errors, as libsystemd 252 handles them: a field whose data object fails its checks is left
// out of the entry; an entry whose object fails them is skipped (counted Unreadable unless it
// was never written: a zeroed tail); a damaged entry array ends its file's list; a file whose
// header libsystemd refuses, or whose arrays are out of order, is reported (BadFiles) and
// closed. No error ends the source: the other files are read on.
type Source struct {
	o     backend.Options
	dirs  []string
	files []*jfile
	watch *dirWatch
	check *backend.FileChecker
	backend.Progress
	stats        backend.Stats
	closed       bool
	start        func(j *jfile) error // positions a file found at open (cursor, head, Since, tail)
	loaded       bool                 // the first scan is done: files found later start at their head
	rescan       bool                 // a file was too young to open: scan again at the next poll
	items        []uint64
	out          []byte // the returned entry's fields and cursor
	cache        *blockCache
	listed       int                 // files read through their match's entry list (jfile_match.go)
	decompressed int                 // fields stored compressed, read (tests check the path is taken)
	skip         map[string]uint64   // files not to open: read to their end, or unreadable (path → inode)
	other        map[uint64]struct{} // data objects holding no field read (file id, offset; see nativeOtherRead)
	otherMax     int
	// bound holds back, per boot, the entries of files still written that are newer than
	// round one of the last poll saw (poll); empty when fewer than two files are written.
	bound map[[16]byte]uint64
	// the last entry returned, and its file's sequence number id: the next must come after
	last      jentry
	lastSeqID [16]byte
	haveLast  bool
	// onRefresh, set by tests only, runs after each file's header is read in a poll's round
	// (1 or 2): the moment another file's entry can slip between two snapshots.
	onRefresh func(j *jfile, round int)
}

// Cache sizes, for all files together: following, 128 blocks of 16 KiB (2 MiB) hold the fields
// entries share and the newest appends; reading to the end, 8 MiB keep more of the fields of
// big files read side by side.
const (
	nativeBlocksFollow = 128
	nativeBlocksRead   = 512
)

// Open opens the journal files o names and positions them; the first Next returns the first
// entry after that position.
func Open(o backend.Options) (*Source, error) {
	s := &Source{o: o, check: backend.NewNamespaceChecker(o.Dir, o.Namespace), skip: map[string]uint64{}, bound: map[[16]byte]uint64{},
		other: map[uint64]struct{}{}}
	s.stats.Backend = Name
	if o.NoFollow {
		s.cache, s.otherMax = newBlockCache(nativeBlocksRead, jblockSize), nativeOtherRead
	} else {
		s.cache, s.otherMax = newBlockCache(nativeBlocksFollow, jblockSize), nativeOtherFollow
	}
	s.dirs = s.check.Dirs
	if !o.NoFollow {
		w, err := newDirWatch()
		if err != nil {
			return nil, fmt.Errorf("ingest: native backend: %w", err)
		}
		s.watch = w
	}
	s.position()
	s.scan()
	s.loaded = true
	if len(s.files) == 0 && s.watch == nil {
		if _, err := os.Stat(s.dirOrDefault()); err != nil {
			s.Close()
			return nil, fmt.Errorf("ingest: opening %s: %w", o.Name(), err)
		}
	}
	return s, nil
}

func (s *Source) dirOrDefault() string {
	if len(s.dirs) > 0 {
		return s.dirs[0]
	}
	return "/var/log/journal"
}

// position decides where the files found at open start: after the saved cursor, at their
// head, at Since, or at their end (the tail).
func (s *Source) position() {
	if c := s.o.Cursor; c != "" {
		p, ok := backend.ParseCursor([]byte(c))
		if ok {
			s.Resume = backend.ResumePoint{Cursor: c, FromStore: true}
			id := string(p.SeqnumID)
			s.start = func(j *jfile) error {
				if hex.EncodeToString(j.seqID[:]) == id {
					return j.bisect(func(h *jentry) bool { return h.seqnum >= p.Seqnum })
				}
				return j.bisect(func(h *jentry) bool { return h.realtime >= p.Realtime })
			}
			return
		}
		s.o.InvalidCursor(&s.stats)
	}
	if s.o.Head {
		s.start = func(j *jfile) error { j.seekIndex(0); return nil }
		return
	}
	if !s.o.Since.IsZero() {
		t := uint64(s.o.Since.UnixMicro())
		s.start = func(j *jfile) error { return j.bisect(func(h *jentry) bool { return h.realtime >= t }) }
		return
	}
	s.start = func(j *jfile) error { j.seekIndex(j.n); return nil }
}

// Next implements journal.Source.
func (s *Source) Next(e *ingest.Entry, wait time.Duration) (bool, error) {
	if s.closed {
		return false, backend.ErrClosed
	}
	var deadline time.Time
	polled := false
	for {
		if ok := s.step(e); ok {
			return true, nil
		}
		if s.o.NoFollow {
			return false, io.EOF
		}
		now := time.Now()
		if deadline.IsZero() {
			deadline = now.Add(wait)
		}
		if polled {
			rem := deadline.Sub(now)
			if rem <= 0 {
				return false, nil
			}
			s.stats.Waits++
			s.watch.wait(rem)
		}
		polled = true
		s.poll()
	}
}

// step returns the next matching entry of the current snapshot, false when there is none.
func (s *Source) step(e *ingest.Entry) bool {
	for {
		j := s.earliest()
		if j == nil {
			return false
		}
		ok, err := s.read(j, e)
		j.advance()
		if err != nil {
			s.unreadable(err)
			continue
		}
		if !ok {
			continue
		}
		s.last, s.lastSeqID, s.haveLast = j.head, j.seqID, true
		same := s.Resume.Pending() && bytes.Equal(e.Cursor, []byte(s.Resume.Cursor))
		if s.Admit(e.Cursor, same, &s.o, &s.stats) {
			return true
		}
	}
}

// earliest peeks every file with entries left in its snapshot and returns the one whose next
// entry comes first in journal order; nil when no file has any. As in libsystemd
// (next_beyond_location), an entry that does not come after the last one returned is passed
// over: the same entry in two files, or stamps and sequence numbers gone backwards.
func (s *Source) earliest() *jfile {
	var best *jfile
	for _, j := range s.files {
		if j.broken {
			continue
		}
		err := j.peek()
		for err == nil && s.haveLast && !s.afterLast(j) {
			j.advance()
			err = j.peek()
		}
		s.noteBad(j)
		if errors.Is(err, errEnd) {
			continue
		}
		if err != nil {
			s.damaged(j, err)
			continue
		}
		if m, ok := s.bound[j.head.boot]; ok && !j.final && j.head.monotonic > m {
			continue // wait for the next snapshot (poll)
		}
		if best == nil || before(j, best) {
			best = j
		}
	}
	return best
}

// afterLast says whether j's next entry comes after the last one returned
// (compare_with_location).
func (s *Source) afterLast(j *jfile) bool {
	a, l := &j.head, &s.last
	switch {
	case j.seqID == s.lastSeqID && a.seqnum != l.seqnum:
		return a.seqnum > l.seqnum
	case a.boot == l.boot && a.monotonic != l.monotonic:
		return a.monotonic > l.monotonic
	case a.realtime != l.realtime:
		return a.realtime > l.realtime
	}
	return a.xor > l.xor
}

// noteBad counts and reports the entries j skipped as damaged since the last call.
func (s *Source) noteBad(j *jfile) {
	if j.bad > j.badSeen {
		s.stats.Unreadable += int64(j.bad - j.badSeen)
		s.o.Warnf("%s: skipped %d unreadable entries: %v", s.o.Name(), j.bad-j.badSeen, j.badErr)
		j.badSeen = j.bad
	}
}

// before says whether af's next entry comes before bf's, in sd-journal's order: by sequence
// number within one writer's sequence, else by monotonic time within one boot, else by
// wall-clock time.
func before(af, bf *jfile) bool {
	a, b := &af.head, &bf.head
	switch {
	case af.seqID == bf.seqID && a.seqnum != b.seqnum:
		return a.seqnum < b.seqnum
	case a.boot == b.boot && a.monotonic != b.monotonic:
		return a.monotonic < b.monotonic
	case a.realtime != b.realtime:
		return a.realtime < b.realtime
	}
	return a.xor < b.xor
}

// unreadable counts and reports an entry skipped because its objects could not be read.
func (s *Source) unreadable(err error) {
	s.stats.Unreadable++
	s.o.Warnf("%s: skipping an unreadable entry: %v", s.o.Name(), err)
}

// damaged stops reading a file whose entry arrays cannot be followed any more.
func (s *Source) damaged(j *jfile, err error) {
	j.broken = true
	s.stats.BadFiles++
	s.o.Warnf("%s: %v; the rest of this file is skipped", s.o.Name(), err)
}

// Close implements journal.Source.
func (s *Source) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	for _, j := range s.files {
		j.close()
	}
	s.files = nil
	if s.watch != nil {
		s.watch.close()
	}
	return nil
}

func (s *Source) afterRefresh(j *jfile, round int) {
	if s.onRefresh != nil {
		s.onRefresh(j, round)
	}
}

// Stats implements journal.Source.
func (s *Source) Stats() backend.Stats { return s.stats }
