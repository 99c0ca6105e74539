//go:build linux

package native

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/specwatch/specwatch/ingest/journal/backend"
)

// scan finds the journal files: opens new ones, retires those journald no longer writes, and
// reports damaged ones (fileChecker).
func (s *Source) scan() {
	found := map[uint64]string{}
	type file struct {
		path string
		st   syscall.Stat_t
	}
	var files []file
	for _, d := range s.dirs {
		s.watch.addDir(d)
		for _, p := range backend.JournalFilesIn(d, s.o.Namespace) {
			f := file{path: p}
			if syscall.Stat(p, &f.st) != nil {
				continue
			}
			found[f.st.Ino] = p
			files = append(files, f)
			s.watch.addDir(filepath.Dir(p))
		}
	}
	changed := false
	known := map[uint64]bool{}
	for _, j := range s.files {
		known[j.ino] = true
		p, ok := found[j.ino]
		if ok {
			j.path = p // renamed when archived
		}
		if !j.retired && (!ok || !activeJournalName(p)) {
			s.retire(j)
			changed = true
		}
	}
	for p, ino := range s.skip {
		if found[ino] != p {
			delete(s.skip, p) // gone: a new file there is new
		}
	}
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.path, b.path) })
	for _, f := range files {
		p, st := f.path, &f.st
		if known[st.Ino] || s.skip[p] == st.Ino {
			continue
		}
		j, err := openJFile(p, s.cache, !s.o.NoFollow)
		switch {
		case errors.Is(err, errJournalUnsupported):
			s.skip[p] = st.Ino
			s.stats.BadFiles++
			s.o.Warnf("%s: %v; the file is skipped (the sdjournal backend reads it)", s.o.Name(), err)
			continue
		case err != nil && time.Since(time.Unix(st.Mtim.Unix())) < backend.JournalYoung:
			// journald may be creating it (the header is written after the file exists):
			// look again at the next poll
			s.rescan = true
			continue
		case errors.Is(err, errCutHeader):
			s.skip[p] = st.Ino // the file checker reports it
			continue
		case errors.Is(err, errRefused):
			s.skip[p] = st.Ino
			s.stats.BadFiles++
			s.o.Warnf("%s: %v; the file is skipped (as libsystemd and journalctl skip it)", s.o.Name(), err)
			continue
		case err != nil:
			s.skip[p] = st.Ino // damage is reported by the fileChecker
			continue
		}
		j.ino = st.Ino
		if !activeJournalName(p) {
			j.retired, j.final = true, true
		} else {
			j.wd = s.watch.addFile(p)
		}
		if m := s.o.Matches(); len(m) == 1 {
			if err := j.setMatch([]byte(m[0])); err != nil {
				s.damaged(j, err)
			}
			if j.match != nil {
				s.listed++
			}
		}
		if !s.loaded && !j.broken {
			if err := s.start(j); err != nil {
				s.damaged(j, err)
			}
		}
		s.files = append(s.files, j)
		changed = true
	}
	if s.loaded && changed {
		s.stats.Invalidations++
	}
	for _, msg := range s.check.Scan(time.Now()) {
		s.stats.BadFiles++
		s.o.Warnf("%s", msg)
	}
}

// activeJournalName says whether journald may still write the file named p: archived files
// have "@" in their name, and files it found dirty are renamed with a "~" suffix.
func activeJournalName(p string) bool {
	b := filepath.Base(p)
	return !strings.Contains(b, "@") && !strings.HasSuffix(b, "~")
}

// retire marks j as no longer written; one more header read gives its final entry count.
func (s *Source) retire(j *jfile) {
	j.retired = true
	s.watch.rmFile(j.wd)
}

// poll takes a new snapshot of the files' headers, after a directory scan when the
// directory changed. With several files being written, it bounds what may be read so that
// no entry is returned before an older one another file has not shown yet (Source.bound).
func (s *Source) poll() {
	if s.watch.drain() || s.rescan || s.check.Due(time.Now()) {
		s.rescan = false
		s.scan()
	}
	live := 0
	for _, j := range s.files {
		if !j.final {
			live++
		}
	}
	clear(s.bound)
	if live >= 2 {
		// Round one: the newest entry's monotonic time of each boot, over every file being
		// written. journald stamps and links entries one at a time, in that time's order, and
		// all its files share the clock; so every entry up to it was linked before round two
		// starts, and round two shows all of them. (Sequence numbers are shared too, but the
		// user journals carry another sequence number id, so they cannot be compared.)
		for _, j := range s.files {
			if !j.final && !j.broken {
				if err := j.refresh(); err != nil {
					s.damaged(j, err)
					continue
				}
				s.bound[j.tailBoot] = max(s.bound[j.tailBoot], j.tailMono)
				s.afterRefresh(j, 1)
			}
		}
	}
	for _, j := range s.files {
		if j.final || j.broken {
			continue
		}
		if err := j.refresh(); err != nil {
			s.damaged(j, err)
			continue
		}
		j.final = j.retired
		s.afterRefresh(j, 2)
	}
	s.files = slices.DeleteFunc(s.files, func(j *jfile) bool {
		if (j.final && !j.pending()) || j.broken {
			s.skip[j.path] = j.ino // read to its end: never again
			j.close()
			return true
		}
		return false
	})
}

// bisect positions j at the entry libsystemd's seek lands on for a needle that after says an
// entry is at or past (generic_array_bisect, the rule for stamps that go backwards): the
// arrays of the chain are taken in order, and the first whose last entry is at or past the
// needle is bisected; an unreadable item cuts the range short there. With none, j is
// positioned at its end.
func (j *jfile) bisect(after func(*jentry) bool) error {
	base, n := uint64(0), j.n
	if j.match != nil {
		// the list's first entry is stored in the data object (generic_array_bisect_plus_one)
		if n == 0 {
			j.seekIndex(j.n)
			return nil
		}
		if ok, _ := j.test(0, after); ok {
			j.seekIndex(0)
			return nil
		}
		base, n = 1, n-1
	}
	for n > 0 {
		a, err := j.arrayFor(base - j.skipItems())
		if errors.Is(err, errEnd) || errors.Is(err, errBadObject) || errors.Is(err, errUninit) {
			break
		}
		if err != nil {
			return err
		}
		right := min(a.cap, n)
		ok, bad := j.test(base+right-1, after)
		if bad {
			n = right - 1
			continue
		}
		if ok {
			left, right := uint64(0), right-1
			for left < right {
				mid := (left + right) / 2
				ok, bad := j.test(base+mid, after)
				switch {
				case bad:
					right, n = mid, mid
				case ok:
					right = mid
				default:
					left = mid + 1
				}
			}
			j.seekIndex(base + left)
			return nil
		}
		if a.cap >= n {
			break
		}
		n -= a.cap
		base += a.cap
	}
	j.seekIndex(j.n)
	return nil
}

// skipItems is the list index of the chain's first item: 1 for a match's list, whose first
// entry is in the data object.
func (j *jfile) skipItems() uint64 {
	if j.match != nil {
		return 1
	}
	return 0
}

// test reads list item i and says whether after holds for its entry; bad when it cannot be
// read.
func (j *jfile) test(i uint64, after func(*jentry) bool) (ok, bad bool) {
	j.seekIndex(i)
	j.from = 0 // a probe may look past n_entries
	bad0 := j.bad
	err := j.peek()
	j.bad = bad0 // a probe counts nothing: reading on does
	if err != nil || j.next != i {
		return false, true
	}
	return after(&j.head), false
}

// ReadsAll says whether this backend decodes every journal file in dir ("" the local journal)
// now: what journal's auto choice asks. A file it cannot open at all is no reason to choose
// another backend (they skip it too).
func ReadsAll(dir, ns string) bool {
	for _, d := range backend.NewNamespaceChecker(dir, ns).Dirs {
		for _, p := range backend.JournalFilesIn(d, ns) {
			j, err := openJFile(p, newBlockCache(1, jblockSize), false)
			if errors.Is(err, errJournalUnsupported) {
				return false
			}
			if err == nil {
				j.close()
			}
		}
	}
	return true
}
