//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// fileLedger is the test's own account of what the followed files hold: every generation of
// content (a file from its creation or its last truncation to now), with its inode, its bytes
// and the sequence number and end offset of each of its lines. A copy (copytruncate) is a
// generation of its own holding the same lines at the same offsets.
type fileLedger struct {
	t    *testing.T
	dir  string
	mu   sync.Mutex // held by the writer per line and by the faults, so each sees files whole
	gens []*generation
	cur  *generation // engine.log's
	w    *os.File
	seq  int // lines written
	rot  int // rotations so far; rotated files are engine.log.1 (newest) … engine.log.<rot>
}

type generation struct {
	ino     uint64
	path    string
	content []byte
	seqs    []int
	ends    []int64
	deleted bool // deleted at a checkpoint, after the daemon read it in full
	gone    bool // deleted or truncated: no longer a file under its path
}

func newFileLedger(t *testing.T, dir string) *fileLedger {
	l := &fileLedger{t: t, dir: dir}
	l.create()
	return l
}

func (l *fileLedger) path(name string) string { return filepath.Join(l.dir, name) }

func inode(t *testing.T, path string) uint64 {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// create starts a new engine.log.
func (l *fileLedger) create() {
	w, err := os.OpenFile(l.path("engine.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_EXCL, 0o644)
	if err != nil {
		l.t.Fatal(err)
	}
	l.w = w
	l.cur = &generation{ino: inode(l.t, l.path("engine.log")), path: "engine.log"}
	l.gens = append(l.gens, l.cur)
}

// write appends one line to engine.log; the caller holds mu.
func (l *fileLedger) write() {
	l.seq++
	line := fmt.Sprintf("[2026-11-20 09:00:00] file line %08d\n", l.seq)
	if _, err := l.w.WriteString(line); err != nil {
		l.t.Error(err)
		return
	}
	g := l.cur
	g.content = append(g.content, line...)
	g.seqs = append(g.seqs, l.seq)
	g.ends = append(g.ends, int64(len(g.content)))
}

// shift renames engine.log.N to engine.log.N+1, oldest first, making room for a new .1.
func (l *fileLedger) shift() {
	for n := l.rot; n >= 1; n-- {
		from, to := fmt.Sprintf("engine.log.%d", n), fmt.Sprintf("engine.log.%d", n+1)
		if _, err := os.Stat(l.path(from)); err != nil {
			continue // deleted at a checkpoint
		}
		if err := os.Rename(l.path(from), l.path(to)); err != nil {
			l.t.Fatal(err)
		}
		for _, g := range l.gens {
			if !g.gone && g.path == from {
				g.path = to
			}
		}
	}
	l.rot++
}

// rotate is logrotate's default: rename, and a new file under the old name.
func (l *fileLedger) rotate() {
	l.shift()
	l.w.Close()
	if err := os.Rename(l.path("engine.log"), l.path("engine.log.1")); err != nil {
		l.t.Fatal(err)
	}
	l.cur.path = "engine.log.1"
	l.create()
}

// copyTruncate is logrotate's copytruncate: the content copied to engine.log.1, then the file
// truncated in place (no line is written in between: the writer waits on mu).
func (l *fileLedger) copyTruncate() {
	l.shift()
	if err := os.WriteFile(l.path("engine.log.1"), l.cur.content, 0o644); err != nil {
		l.t.Fatal(err)
	}
	cp := &generation{ino: inode(l.t, l.path("engine.log.1")), path: "engine.log.1",
		content: append([]byte(nil), l.cur.content...), seqs: l.cur.seqs, ends: l.cur.ends}
	if err := l.w.Truncate(0); err != nil {
		l.t.Fatal(err)
	}
	l.cur.gone, l.cur.path = true, ""
	l.cur = &generation{ino: cp.ino, path: "engine.log"}
	l.cur.ino = inode(l.t, l.path("engine.log"))
	l.gens = append(l.gens, cp, l.cur)
}

// recreate deletes engine.log and starts a new one (the daemon has read it: a checkpoint).
func (l *fileLedger) recreate() {
	l.w.Close()
	if err := os.Remove(l.path("engine.log")); err != nil {
		l.t.Fatal(err)
	}
	l.cur.gone, l.cur.deleted = true, true
	l.create()
}

// prune deletes rotated files beyond keep (the daemon has read them: a checkpoint).
func (l *fileLedger) prune(keep int) {
	for _, g := range l.gens {
		var n int
		if !g.gone && g.path != "engine.log" {
			fmt.Sscanf(g.path, "engine.log.%d", &n)
		}
		if n > keep {
			if err := os.Remove(l.path(g.path)); err != nil {
				l.t.Fatal(err)
			}
			g.gone, g.deleted = true, true
		}
	}
}

type savedPosition struct {
	Path   string `json:"path"`
	Ino    uint64 `json:"ino"`
	FPLen  int    `json:"fp_len"`
	FP     uint64 `json:"fp"`
	Offset int64  `json:"offset"`
	Orphan bool   `json:"orphan"`
}

// describe is the ledger's generations, for a failure message.
func (l *fileLedger) describe() string {
	var b strings.Builder
	for _, g := range l.gens {
		first, last := -1, -1
		if len(g.seqs) > 0 {
			first, last = g.seqs[0], g.seqs[len(g.seqs)-1]
		}
		fmt.Fprintf(&b, "  ino %d path %q bytes %d seqs %d-%d gone %v deleted %v\n", g.ino, g.path, len(g.content), first, last, g.gone, g.deleted)
	}
	return b.String()
}

// readPositions reads a (stopped) daemon's files.positions.
func readPositions(t *testing.T, stateDir string) []savedPosition {
	b, err := os.ReadFile(filepath.Join(stateDir, "files.positions"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Files []savedPosition }
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("files.positions: %v: %s", err, b)
	}
	return f.Files
}

// after is how many lines written so far lie after the positions a daemon starts from: the
// lines it must apply, each once. A line is covered (applied before) when a position of a
// generation holding it is past its end; lines of generations deleted at checkpoints were read
// in full. The generation a position names is the one with its inode whose first bytes
// hash to its fingerprint, as the daemon matched it.
func (l *fileLedger) after(pos []savedPosition) int {
	covered := map[int]bool{}
	for _, p := range pos {
		// The generations the position can name: its inode, its first bytes. A short
		// fingerprint may fit an earlier generation of the inode too; the daemon resumes the
		// file there now, so an existing generation is the one.
		var match []*generation
		for _, g := range l.gens {
			if g.ino != p.Ino || len(g.content) < p.FPLen {
				continue
			}
			h := fnv.New64a()
			h.Write(g.content[:p.FPLen])
			if h.Sum64() == p.FP {
				match = append(match, g)
			}
		}
		if live := slices.DeleteFunc(slices.Clone(match), func(g *generation) bool { return g.gone }); len(live) > 0 {
			match = live
		}
		for _, g := range match {
			for i, end := range g.ends {
				if end <= p.Offset {
					covered[g.seqs[i]] = true
				}
			}
		}
	}
	for _, g := range l.gens {
		if g.deleted {
			for _, s := range g.seqs {
				covered[s] = true
			}
		}
	}
	return l.seq - len(covered)
}
