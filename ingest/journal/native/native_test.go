package native

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/ingest/journal/sdjournal"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// TestNativeMatchesSDJournal: on a real journald's files (three of them after two rotations;
// units, entries with only an identifier, binary and zstd-compressed messages), the native
// backend returns exactly what libsystemd does, field for field and cursor for cursor, with
// and without matches.
func TestNativeMatchesSDJournal(t *testing.T) {
	requireSD(t)
	j := journaltest.StartJournald(t)
	big := bytes.Repeat([]byte("0123456789abcdef "), 200) // 3.4 kB: journald compresses it
	const n = 1500
	for i := range n {
		msg := journaltest.Numbered("line", i)
		switch {
		case i%100 == 7:
			msg = append(append([]byte{}, big...), msg...)
		case i%50 == 3:
			msg = append([]byte("bin\x00\x01\xff\n"), msg...)
		}
		switch i % 3 {
		case 0:
			j.Write("a.service", "engine", msg)
		case 1:
			j.Write("b.service", "other", msg)
		default:
			j.Write("", "tool", msg)
		}
		if i == n/3 || i == 2*n/3 {
			j.Rotate()
		}
	}
	j.Sync()
	if files := j.Files(); len(files) < 3 {
		t.Fatalf("want 3 journal files after two rotations, have %v", files)
	}
	for _, m := range []struct {
		name          string
		units, idents []string
	}{{"all", nil, nil}, {"unit+identifier", []string{"a.service"}, []string{"tool"}}, {"unit", []string{"b.service"}, nil}} {
		t.Run(m.name, func(t *testing.T) {
			read := func(b string, noFollow bool) []journaltest.Owned {
				src := openJ(t, b, backend.Options{Dir: j.Dir(), Units: m.units, Identifiers: m.idents, NoFollow: noFollow, Head: true})
				got := journaltest.Drain(t, src, 300*time.Millisecond)
				if ns, ok := src.(*Source); ok {
					if m.name == "all" && ns.decompressed == 0 {
						t.Errorf("no compressed field was read: the test does not exercise zstd")
					}
					// one match: every file through its entry list; more: every entry scanned
					if single := len(m.units)+len(m.idents) == 1; single != (ns.listed >= 3) || !single && ns.listed != 0 {
						t.Errorf("%d files read through an entry list", ns.listed)
					}
				}
				return got
			}
			sd, native := read(sdjournal.Name, false), read(Name, false)
			journaltest.SameEntries(t, native, sd)
			want := map[string]int{"all": n, "unit+identifier": 2 * n / 3, "unit": n / 3}[m.name]
			ours := 0
			for _, o := range native {
				if strings.Contains(o.Message, "line ") {
					ours++
				}
			}
			if ours != want {
				t.Fatalf("read %d of the test's lines, want %d", ours, want)
			}
			// reading to the end without following gives the same, without cursors compared
			// (sdjournal sets them on batch ends only)
			nf := read(Name, true)
			if len(nf) != len(native) {
				t.Fatalf("NoFollow read %d entries, following %d", len(nf), len(native))
			}
		})
	}
}

// TestNativeCursorInterop: a cursor saved by one backend resumes exactly in the other, both
// ways: the daemon can change backend across a restart without losing or repeating a line.
func TestNativeCursorInterop(t *testing.T) {
	requireSD(t)
	j := journaltest.StartJournald(t)
	const n = 400
	for i := range n {
		j.Write("a.service", "engine", journaltest.Numbered("line", i))
		if i == 200 {
			j.Rotate()
		}
	}
	j.Sync()
	for _, c := range []struct{ from, to string }{{sdjournal.Name, Name}, {Name, sdjournal.Name}} {
		t.Run(c.from+"-to-"+c.to, func(t *testing.T) {
			for _, k := range []int{0, 199, 200, 201, n - 2} {
				src := openJ(t, c.from, backend.Options{Dir: j.Dir(), Units: []string{"a.service"}, Head: true})
				first := journaltest.ReadN(t, src, k+1, 10*time.Second)
				src.Close()
				src = openJ(t, c.to, backend.Options{Dir: j.Dir(), Units: []string{"a.service"}, Cursor: first[k].Cursor})
				rest := journaltest.ReadN(t, src, n-k-1, 10*time.Second)
				journaltest.ExpectQuiet(t, src, 300*time.Millisecond)
				journaltest.CheckSequence(t, append(first, rest...), n)
				if st := src.Stats(); st.CursorMissing != 0 || st.Duplicates != 0 {
					t.Fatalf("resumed at %d: %+v", k, st)
				}
			}
		})
	}
}

// TestNativeMergesFiles: files of different writers (journal-remote gives each file its own
// sequence) are merged by time, as libsystemd does.
func TestNativeMergesFiles(t *testing.T) {
	requireSD(t)
	dir := t.TempDir()
	for f := range 3 {
		testjournal.BuildFileFunc(t, dir, 300, func(i int, e *testjournal.Entry) {
			e.Time = testjournal.FixtureEpoch.Add(time.Duration(3*i+f) * time.Millisecond)
			e.Unit, e.Identifier, e.Host = "a.service", "engine", fmt.Sprintf("host%d", f)
			e.Message = journaltest.Numbered("line", 3*i+f)
		})
	}
	read := func(b string) []journaltest.Owned {
		return journaltest.Drain(t, openJ(t, b, backend.Options{Dir: dir, Units: []string{"a.service"}, NoFollow: true, Head: true}), time.Second)
	}
	native := read(Name)
	journaltest.CheckSequence(t, native, 900)
	sd := read(sdjournal.Name)
	for i := range sd {
		sd[i].Cursor, native[i].Cursor = "", "" // sdjournal's NoFollow sets them on batch ends only
	}
	journaltest.SameEntries(t, native, sd)
}

// TestNativeBadInput: a damaged entry is skipped and counted, a file with an incompatible flag
// this reader does not know (nor does libsystemd 252) is reported and skipped, and everything
// else is read. Through a unit's match, as libsystemd (journalctl shows the same), the damaged
// entry ends its file: libsystemd moves to a match's next entry by offset and drops the file
// when that entry is unreadable; the file is reported.
func TestNativeBadInput(t *testing.T) {
	dir := t.TempDir()
	good := testjournal.BuildFileFunc(t, dir, 100, journaltest.Lines(0, 100, "a.service"))
	damaged := testjournal.BuildFileFunc(t, dir, 100, journaltest.Lines(100, 200, "a.service"))
	future := testjournal.BuildFileFunc(t, dir, 50, journaltest.Lines(200, 250, "a.service"))
	// entry 50 of the damaged file: its object type byte becomes a data object's
	jf, err := openJFile(damaged, newBlockCache(4, jblockSize), false)
	if err != nil {
		t.Fatal(err)
	}
	jf.seekIndex(50)
	if err := jf.peek(); err != nil {
		t.Fatal(err)
	}
	at := int64(jf.head.off)
	jf.close()
	journaltest.Patch(t, damaged, at, []byte{jobjData})
	// the future file: incompatible flag 32, unknown to systemd 252
	var fl [4]byte
	binary.LittleEndian.PutUint32(fl[:], 32|jflagKeyed|jflagCompact)
	journaltest.Patch(t, future, 12, fl[:])
	for _, f := range []string{good, damaged, future} {
		journaltest.Aged(t, f)
	}
	for _, m := range []struct {
		units              []string
		want               int
		unreadable, broken int64
	}{{nil, 199, 1, 1}, {[]string{"a.service"}, 150, 0, 2}} {
		var warned []string
		src := openJ(t, Name, backend.Options{Dir: dir, Units: m.units,
			NoFollow: true, Warn: func(m string) { warned = append(warned, m) }, Head: true})
		got := journaltest.Drain(t, src, time.Second)
		if len(got) != m.want {
			t.Fatalf("units %v: read %d entries, want %d; %+v; warnings %q", m.units, len(got), m.want, src.Stats(), warned)
		}
		for i, o := range got {
			if want := i + i/150; journaltest.SeqOf(t, o.Message) != want { // 150 is missing
				t.Fatalf("entry %d is line %d, want %d", i, journaltest.SeqOf(t, o.Message), want)
			}
		}
		st := src.Stats()
		if st.Unreadable != m.unreadable || st.BadFiles != m.broken {
			t.Fatalf("units %v: stats %+v, want %d unreadable entries and %d bad files; warnings %q", m.units, st, m.unreadable, m.broken, warned)
		}
		if !strings.Contains(strings.Join(warned, "\n"), filepath.Base(future)) {
			t.Fatalf("no warning names %s: %q", future, warned)
		}
	}
}
