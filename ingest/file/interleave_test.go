package file

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The deterministic exactly-once test: writers and a rotator driven step by step, the daemon
// reading (and saving its positions) between steps, and a kill injected at every step
// boundary of every rotation style — after a flush, after reading without a flush, before
// reading — with the next step done while the daemon is down. A line may be missing only if
// it vanished from every file (truncated or deleted) before the daemon had saved it; no line
// may be applied twice.

// world is the files as the writers and the rotator made them, line numbers per name.
type world struct {
	t       *testing.T
	dir     string
	files   map[string][]int // name → the lines in it, in order
	writers []*writer
	seq     int
	vanish  map[int]bool // lines that left every file
}

// writer is an engine writing its log; append=false is `engine > log` (no O_APPEND): after a
// truncation it goes on at its old offset.
type writer struct {
	name   string
	append bool
	f      *os.File
	off    int64
}

func newWorld(t *testing.T, dir string, names []string, appendMode bool) *world {
	w := &world{t: t, dir: dir, files: map[string][]int{}, vanish: map[int]bool{}}
	for _, n := range names {
		wr := &writer{name: n, append: appendMode}
		w.writers = append(w.writers, wr)
		w.open(wr)
	}
	return w
}

func (w *world) path(n string) string { return w.dir + "/" + n }

func (w *world) open(wr *writer) {
	flags := os.O_CREATE | os.O_WRONLY
	if wr.append {
		flags |= os.O_APPEND
	}
	f, err := os.OpenFile(w.path(wr.name), flags, 0o644)
	must(w.t, err)
	if wr.f != nil {
		wr.f.Close()
	}
	wr.f, wr.off = f, 0
	if _, ok := w.files[wr.name]; !ok {
		w.files[wr.name] = nil
	}
}

// line is a numbered line of 48 bytes: the fingerprint (256 bytes) covers about five.
func lineText(n int) string { return fmt.Sprintf("L%07d %s\n", n, strings.Repeat("x", 39)) }

func (w *world) write(i, n int) {
	wr := w.writers[i]
	var b strings.Builder
	for range n {
		w.seq++
		b.WriteString(lineText(w.seq))
		w.files[wr.name] = append(w.files[wr.name], w.seq)
	}
	var err error
	if wr.append {
		_, err = wr.f.WriteString(b.String())
	} else {
		_, err = wr.f.WriteAt([]byte(b.String()), wr.off)
		wr.off += int64(b.Len())
	}
	must(w.t, err)
}

func (w *world) gone(lines []int, saved map[int]bool) {
	for _, l := range lines {
		if !saved[l] {
			w.vanish[l] = true
		}
	}
}

// A step changes the world; saved are the lines the daemon has saved (for vanish).
type step struct {
	name string
	do   func(w *world, saved map[int]bool)
}

func writeStep(i, n int) step {
	return step{fmt.Sprintf("write %d×%d", i, n), func(w *world, _ map[int]bool) { w.write(i, n) }}
}

// renameStep renames writer i's file to to; out of the globs, a file of which no line was
// saved yet may not be known to any saved state, and is then out of reach.
func renameStep(i int, to string, outOfGlobs bool) step {
	return step{"rename to " + to, func(w *world, saved map[int]bool) {
		wr := w.writers[i]
		if outOfGlobs && !slices.ContainsFunc(w.files[wr.name], func(l int) bool { return saved[l] }) {
			w.gone(w.files[wr.name], saved)
		}
		must(w.t, os.Rename(w.path(wr.name), w.path(to)))
		w.gone(w.files[to], saved) // an older rotated file under that name is replaced
		w.files[to] = w.files[wr.name]
		delete(w.files, wr.name)
		w.open(wr)
	}}
}

func deleteStep(i int) step {
	return step{"delete and recreate", func(w *world, saved map[int]bool) {
		wr := w.writers[i]
		must(w.t, os.Remove(w.path(wr.name)))
		w.gone(w.files[wr.name], saved)
		delete(w.files, wr.name)
		w.open(wr)
	}}
}

// shiftStep renames app.log.N to app.log.N+1, the highest first, as logrotate does before it
// makes a new app.log.1.
func shiftStep(base string) step {
	return step{"shift " + base + ".N", func(w *world, saved map[int]bool) {
		n := 0
		for name := range w.files {
			if k, err := strconv.Atoi(strings.TrimPrefix(name, base+".")); err == nil && strings.HasPrefix(name, base+".") {
				n = max(n, k)
			}
		}
		for k := n; k >= 1; k-- {
			from, to := fmt.Sprintf("%s.%d", base, k), fmt.Sprintf("%s.%d", base, k+1)
			if _, ok := w.files[from]; !ok {
				continue
			}
			must(w.t, os.Rename(w.path(from), w.path(to)))
			w.files[to] = w.files[from]
			delete(w.files, from)
		}
	}}
}

// pruneStep deletes a rotated file.
func pruneStep(name string) step {
	return step{"delete " + name, func(w *world, saved map[int]bool) {
		if _, ok := w.files[name]; !ok {
			return
		}
		must(w.t, os.Remove(w.path(name)))
		w.gone(w.files[name], saved)
		delete(w.files, name)
	}}
}

// copyStep fills copy to with the first frac (0..1] of writer i's file, appending what it
// lacks, as cp does while logrotate copies (frac 0 creates it empty).
func copyStep(i int, to string, frac float64) step {
	return step{fmt.Sprintf("copy %.0f%% to %s", frac*100, to), func(w *world, saved map[int]bool) {
		src := w.writers[i].name
		b, err := os.ReadFile(w.path(src))
		must(w.t, err)
		lines := w.files[src]
		k := int(float64(len(lines)) * frac)
		hole := len(b) - len(lines)*len(lineText(0)) // a non-append writer's NULs
		f, err := os.OpenFile(w.path(to), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		must(w.t, err)
		fi, err := f.Stat()
		must(w.t, err)
		_, err = f.Write(b[fi.Size() : hole+k*len(lineText(0))])
		must(w.t, err)
		f.Close()
		w.files[to] = slices.Clone(lines[:k])
	}}
}

// truncateStep truncates writer i's file in place; refill more lines are written in the same
// step (before any scan), more than were there.
func truncateStep(i, refill int) step {
	return step{fmt.Sprintf("truncate, refill %d", refill), func(w *world, saved map[int]bool) {
		wr := w.writers[i]
		must(w.t, os.Truncate(w.path(wr.name), 0))
		w.gone(w.files[wr.name], saved)
		w.files[wr.name] = nil
		if refill > 0 {
			w.write(i, refill)
		}
	}}
}

// multiStep does steps with no scan between them.
func multiStep(steps ...step) step {
	return step{stepNames(steps), func(w *world, saved map[int]bool) {
		for _, st := range steps {
			st.do(w, saved)
		}
	}}
}

type scenario struct {
	name    string
	glob    string
	names   []string
	append  bool
	maxOpen int
	steps   []step
}

func interleaveScenarios() []scenario {
	ct := func(fsyncDelay bool) []step {
		s := []step{writeStep(0, 20), copyStep(0, "app.log.1", 0), copyStep(0, "app.log.1", 0.5), copyStep(0, "app.log.1", 1)}
		if fsyncDelay {
			s = append(s, writeStep(0, 6)) // written while logrotate fsyncs the copy
		}
		return append(s, truncateStep(0, 0), writeStep(0, 10))
	}
	return []scenario{
		{name: "rename", glob: "app.log*", names: []string{"app.log"}, append: true,
			steps: []step{writeStep(0, 20), renameStep(0, "app.log.1", false), writeStep(0, 10), renameStep(0, "app.log.1", false), writeStep(0, 5)}},
		{name: "rename out of the glob", glob: "*.log", names: []string{"0.log"}, append: true,
			steps: []step{writeStep(0, 20), writeStep(0, 10), renameStep(0, "0.log.20261120-093000", true), writeStep(0, 10)}},
		{name: "copytruncate", glob: "app.log*", names: []string{"app.log"}, append: true, steps: ct(false)},
		{name: "copytruncate with fsync delay", glob: "app.log*", names: []string{"app.log"}, append: true, steps: ct(true)},
		{name: "copytruncate, non-append writer", glob: "app.log*", names: []string{"app.log"}, append: false, steps: ct(true)},
		{name: "refill", glob: "app.log*", names: []string{"app.log"}, append: true,
			steps: []step{writeStep(0, 20), copyStep(0, "app.log.1", 1), truncateStep(0, 30), writeStep(0, 5)}},
		{name: "logrotate chain", glob: "app.log*", names: []string{"app.log"}, append: true,
			steps: []step{writeStep(0, 20),
				multiStep(shiftStep("app.log"), copyStep(0, "app.log.1", 1), truncateStep(0, 0)), writeStep(0, 10),
				multiStep(shiftStep("app.log"), renameStep(0, "app.log.1", false)), writeStep(0, 10),
				multiStep(shiftStep("app.log"), copyStep(0, "app.log.1", 1), truncateStep(0, 0)), writeStep(0, 5),
				multiStep(shiftStep("app.log"), copyStep(0, "app.log.1", 0)), multiStep(copyStep(0, "app.log.1", 1), truncateStep(0, 0)),
				writeStep(0, 5), deleteStep(0), pruneStep("app.log.3"), writeStep(0, 5)}},
		{name: "delete and recreate", glob: "app.log", names: []string{"app.log"}, append: true,
			steps: []step{writeStep(0, 20), deleteStep(0), writeStep(0, 10)}},
		{name: "more files than max_open", glob: "*.log", names: []string{"0.log", "1.log", "2.log", "3.log"}, append: true, maxOpen: 2,
			steps: []step{writeStep(0, 5), writeStep(1, 5), writeStep(2, 5), writeStep(3, 5),
				multiStep(writeStep(0, 3), writeStep(1, 3), writeStep(2, 3), writeStep(3, 3)),
				multiStep(writeStep(0, 2), writeStep(1, 2), writeStep(2, 2), writeStep(3, 2),
					renameStep(0, "0.log.20261120-093000", true), renameStep(1, "1.log.20261120-093000", true)),
				writeStep(2, 3), writeStep(0, 4), writeStep(1, 4)}},
	}
}

// kill styles: what the daemon did before it died.
const (
	killFlushed   = "after a save"
	killUnflushed = "after reading, before the save"
	killUnread    = "before reading"
	killStale     = "after reading three steps unsaved"
)

func TestExactlyOnceEveryInterleaving(t *testing.T) {
	for _, sc := range interleaveScenarios() {
		for k := 0; k <= len(sc.steps); k++ {
			for _, how := range []string{killFlushed, killUnflushed, killUnread, killStale} {
				if (k == 0 || k == len(sc.steps)) && how != killFlushed {
					continue
				}
				name := fmt.Sprintf("%s/kill before step %d %s", sc.name, k, how)
				if k == len(sc.steps) {
					name = sc.name + "/no kill"
				}
				t.Run(name, func(t *testing.T) { runInterleaving(t, sc, k, how) })
			}
		}
	}
}

// runInterleaving runs sc's steps, the daemon reading and saving after each; before step k it
// dies as how says, step k is done while it is down, and it restarts before step k+1.
func runInterleaving(t *testing.T, sc scenario, k int, how string) {
	f := followIn(t, Options{MaxOpen: sc.maxOpen}, sc.glob)
	w := newWorld(t, f.dir, sc.names, sc.append)
	saved := map[int]bool{}
	flushed := 0 // f.lines[:flushed] are saved
	var ledger []string
	save := func() {
		must(t, f.store.Flush())
		for _, l := range f.lines[flushed:] {
			saved[lineNumber(t, l)] = true
		}
		flushed = len(f.lines)
	}
	for i, st := range sc.steps {
		if i == k {
			switch how {
			case killFlushed:
				f.drain()
				save()
			case killUnflushed, killStale:
				f.drain()
			}
			ledger = append(ledger, f.lines[:flushed]...)
			f.src.Close()
			st.do(w, saved)
			o := f.o
			o.Positions = nil
			f = newFollower(t, f.dir, o)
			flushed = 0
		} else {
			st.do(w, saved)
			if i+1 == k {
				continue // what the daemon reads of this step is the kill's to say
			}
		}
		f.drain()
		if how != killStale || i < k-3 || i >= k {
			save()
		}
	}
	f.drain()
	ledger = append(ledger, f.lines...)
	count := map[int]int{}
	for _, l := range ledger {
		if strings.ContainsRune(l, 0) {
			t.Errorf("a line with NUL bytes: %q", l)
		}
		count[lineNumber(t, l)]++
	}
	var lost []int
	for n := 1; n <= w.seq; n++ {
		switch c := count[n]; {
		case c > 1:
			t.Errorf("line %d applied %d times", n, c)
		case c == 0 && w.vanish[n]:
			lost = append(lost, n) // left every file unsaved: logrotate's own copytruncate loss
		case c == 0:
			t.Errorf("line %d never applied (it is still in a file)", n)
		}
	}
	if t.Failed() {
		t.Logf("steps: %s; lost by design: %v; ledger %d lines", stepNames(sc.steps), lost, len(ledger))
	}
}

func stepNames(s []step) string {
	var n []string
	for _, st := range s {
		n = append(n, st.name)
	}
	return strings.Join(n, " → ")
}

func lineNumber(t *testing.T, l string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimLeft(strings.Fields(l + " ")[0], "L\x00"))
	if err != nil || !strings.HasPrefix(strings.TrimLeft(l, "\x00"), "L") {
		t.Fatalf("not a line of the writers: %q", l)
	}
	return n
}
