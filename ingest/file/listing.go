package file

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// compressed are the suffixes of rotated siblings a rotator compressed (kubelet, logrotate):
// their lines were read under the uncompressed name, so they are never followed.
var compressed = []string{".gz", ".zst", ".bz2", ".xz", ".lz4", ".zip"}

// While no directory a glob lists changed, files quiet for restAfter, and files the presets
// refused, are looked at (a stat) at one scan in restStride rather than at every one: with
// 10,000 idle files the stats were 60 % of the follower's idle cost. A quiet file's growth is
// still seen at once while it is open (each poll reads it); a rename or a new file changes its
// directory, which ends the rest; only a closed quiet file's growth or truncation in place
// waits up to restStride scans.
const (
	restAfter  = 30 * time.Second
	restStride = 10
)

// resting returns the names not to stat at this scan, with their files' keys.
func (s *Source) resting(now time.Time, changed bool) map[string]devKey {
	clear(s.rest)
	if changed {
		return s.rest
	}
	rest := s.rest
	for _, t := range s.files {
		if !t.gone && now.Sub(t.lastData) > restAfter && (s.scans+t.id)%restStride != 0 {
			rest[t.path] = keyOf2(t)
		}
	}
	if s.scans%restStride != 0 {
		for key, path := range s.skipped {
			rest[path] = key
		}
	}
	return rest
}

func (s *Source) paths() (names []string, changed bool) {
	var out []string
	fresh := false
	for _, g := range s.o.Globs {
		m, again, err := s.glob(g)
		if err != nil {
			continue // validated by config
		}
		fresh = fresh || again
		n := 0
		for _, p := range m {
			if !slices.ContainsFunc(compressed, func(sfx string) bool { return strings.HasSuffix(p, sfx) }) {
				out = append(out, p)
				n++
			}
		}
		s.globChecked(g, n)
	}
	if !fresh && s.lastPaths != nil {
		return s.lastPaths, false // no directory changed: the same names, without sorting them again
	}
	slices.Sort(out)
	s.lastPaths = slices.Compact(out)
	return s.lastPaths, true
}

// listing is a glob's matches and the modification time of the one directory it lists.
type listing struct {
	mtime, listed time.Time
	names         []string
}

// glob matches g, listing its directory again only when the directory changed: reading a
// directory of 10,000 names every second was a third of the idle follower's cost. A glob with
// patterns in its directories is matched every time. The directory's time is the file
// system's, compared with the wall clock: a listing less than a second younger than the
// change it saw is not trusted (a coarse clock could hide a second change).
func (s *Source) glob(g string) (names []string, fresh bool, err error) {
	dir := filepath.Dir(g)
	if strings.ContainsAny(dir, `*?[\\`) {
		names, err = filepath.Glob(g)
		return names, true, err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		delete(s.listings, g)
		return nil, true, nil
	}
	if l := s.listings[g]; l != nil && fi.ModTime().Equal(l.mtime) && l.listed.Sub(l.mtime) > time.Second {
		return l.names, false, nil
	}
	listed := time.Now()
	names, err = filepath.Glob(g)
	if err == nil {
		s.listings[g] = &listing{mtime: fi.ModTime(), listed: listed, names: names}
	}
	return names, true, err
}
