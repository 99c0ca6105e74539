package native

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// remoteExport writes n entries of journal export text with what tripped readers before: two
// MESSAGE fields in one entry, realtime stamps that go backwards (a clock step, and two hosts'
// clocks interleaved), binary and ANSI messages, messages large enough to be compressed,
// entries with only an identifier or no unit at all, several hosts, and the container fields
// of Docker's and Podman's journald drivers in every form: name and short id, the id alone
// (short or full), a repeated name, a binary name, one large enough to be compressed.
func remoteExport(w io.Writer, n int, seed uint64, containers bool) error {
	rng := rand.New(rand.NewPCG(seed, 1))
	bw := bufio.NewWriterSize(w, 1<<20)
	big := bytes.Repeat([]byte("0123456789abcdef "), 64) // 1 kB: compressed with --compress
	for i := range n {
		e := testjournal.Entry{Host: fmt.Sprintf("gpu%02d", i%3), Unit: "sglang.service", Identifier: "python3",
			Message: fmt.Appendf(nil, "line %08d", i)}
		t := testjournal.FixtureEpoch.Add(time.Duration(i) * time.Millisecond)
		switch {
		case i%5 == 1: // the other host's clock, 10 minutes behind
			t = t.Add(-10 * time.Minute)
		case i > n/2 && i < n/2+n/10: // the clock stepped back an hour
			t = t.Add(-time.Hour)
		}
		e.Time = t
		switch i % 11 {
		case 2:
			e.Unit = ""
		case 3:
			e.Unit, e.Identifier = "", ""
		case 4:
			e.Fields = append(e.Fields, testjournal.Field{Name: "MESSAGE", Value: fmt.Appendf(nil, "second message %d", i)})
		case 5:
			e.Message = append(append([]byte("bin\x00\x01\xff\n\x1b[31m"), big[:rng.IntN(len(big))]...), e.Message...)
		case 6:
			e.Message = append(append([]byte{}, big...), e.Message...)
		case 7:
			e.Fields = append(e.Fields, testjournal.Field{Name: "_SYSTEMD_UNIT", Value: []byte("second.service")},
				testjournal.Field{Name: "CODE_LINE", Value: fmt.Appendf(nil, "%d", rng.IntN(1000))})
		}
		if containers {
			addContainer(&e, i, rng, big)
		}
		if err := testjournal.WriteExport(bw, &e, i); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// addContainer gives entry i the container fields of Docker's and Podman's journald drivers in
// one of their forms (or none).
func addContainer(e *testjournal.Entry, i int, rng *rand.Rand, big []byte) {
	id := fmt.Sprintf("%012x%052x", rng.Uint64()>>16, i)
	switch i % 13 {
	case 1, 8:
		e.Fields = append(e.Fields, testjournal.Field{Name: "CONTAINER_ID", Value: []byte(id[:12])},
			testjournal.Field{Name: "CONTAINER_NAME", Value: fmt.Appendf(nil, "sglang-%d", i%3)},
			testjournal.Field{Name: "CONTAINER_TAG", Value: []byte("sglang")})
	case 2:
		e.Fields = append(e.Fields, testjournal.Field{Name: "CONTAINER_ID", Value: []byte(id[:12])})
	case 3:
		e.Fields = append(e.Fields, testjournal.Field{Name: "CONTAINER_ID", Value: []byte(id)})
	case 4:
		e.Fields = append(e.Fields, testjournal.Field{Name: "CONTAINER_NAME", Value: []byte("first")},
			testjournal.Field{Name: "CONTAINER_NAME", Value: []byte("second")})
	case 5:
		e.Fields = append(e.Fields, testjournal.Field{Name: "CONTAINER_NAME", Value: []byte("bin\x00\x1b[31m\xff")})
	case 6:
		e.Fields = append(e.Fields, testjournal.Field{Name: "CONTAINER_NAME", Value: append([]byte("big-"), big...)})
	}
}

// remoteFile builds a journal file in a directory of its own, in mode m.
func remoteFile(t *testing.T, root string, m testjournal.Mode, write func(io.Writer) error) string {
	t.Helper()
	dir, err := os.MkdirTemp(root, "r")
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(write(pw)) }()
	p := testjournal.BuildFileMode(t, dir, pr, m)
	pr.Close()
	agedAll(t, dir)
	return p
}

func agedAll(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

// TestDiffJournalRemote: files systemd-journal-remote writes in every mode this machine's
// systemd (252) can write — compact or not, keyed hash or not, compressed or not — read as
// libsystemd reads them: from the head, from a time (with stamps gone backwards), through a
// unit's match; a directory holding another namespace's subdirectory; fields of 16 MiB and
// of 70 MiB.
func TestDiffJournalRemote(t *testing.T) {
	requireSD(t)
	root := t.TempDir()
	var cases []diffCase
	since := testjournal.FixtureEpoch.Add(1500 * time.Millisecond)
	for k, m := range testjournal.Modes() {
		p := remoteFile(t, root, m, func(w io.Writer) error { return remoteExport(w, 3000, uint64(k), true) })
		dir := filepath.Dir(p)
		cases = append(cases,
			diffCase{name: m.String(), dir: dir},
			diffCase{name: m.String() + " since", dir: dir, Since: since},
			diffCase{name: m.String() + " since before the step", dir: dir, Since: since.Add(-time.Hour)},
			diffCase{name: m.String() + " unit", dir: dir, Units: []string{"sglang.service"}})
	}
	// another namespace's directory beside the default one's
	p := remoteFile(t, root, testjournal.Mode{Compact: true, Keyed: true}, func(w io.Writer) error { return remoteExport(w, 300, 9, true) })
	dir := filepath.Dir(p)
	for _, sub := range []string{"3d1219c7c4c5404aaa1f6d2a48adfda4", "3d1219c7c4c5404aaa1f6d2a48adfda4.ns1"} {
		os.Mkdir(filepath.Join(dir, sub), 0o755)
		q := remoteFile(t, root, testjournal.Mode{Compact: true, Keyed: true}, func(w io.Writer) error { return remoteExport(w, 200, 10, true) })
		os.Rename(q, filepath.Join(dir, sub, "system.journal"))
	}
	agedAll(t, dir)
	cases = append(cases, diffCase{name: "namespace subdirectory", dir: dir})
	// large fields: 16 MiB of binary, 70 MiB of text
	for _, size := range []int{16 << 20, 70 << 20} {
		p := remoteFile(t, root, testjournal.Mode{Compact: true, Keyed: true, Compress: true}, func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			for i := range 3 {
				msg := bytes.Repeat([]byte{'x'}, size)
				if size == 16<<20 {
					msg[100] = 0 // binary
				}
				copy(msg, fmt.Sprintf("big %d ", i))
				testjournal.WriteExport(bw, &testjournal.Entry{Unit: "a.service", Message: msg}, i)
			}
			return bw.Flush()
		})
		cases = append(cases, diffCase{name: fmt.Sprintf("a %d MiB field", size>>20), dir: filepath.Dir(p), want: 3, wantLen: size})
	}
	runDiff(t, "systemd-journal-remote files", cases)
}
