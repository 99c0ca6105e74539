package ingest

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

type readerCase struct {
	name  string
	in    string
	max   int
	want  []owned
	bad   int64
	trunc int64
}

// runCases reads each case whole, one byte at a time and in halves: the buffering must not
// change what comes out.
func runCases(t *testing.T, shape Shape, cases []readerCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := ReaderOptions{Shape: shape, MaxLineBytes: tc.max}
			got, st, _ := readAll(t, []byte(tc.in), opts)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d entries %v, want %d %v", len(got), got, len(tc.want), tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("entry %d:\n got %v\nwant %v", i, got[i], tc.want[i])
				}
			}
			if st.Bad != tc.bad || st.Truncated != tc.trunc {
				t.Errorf("bad %d truncated %d, want %d %d", st.Bad, st.Truncated, tc.bad, tc.trunc)
			}
			for _, wrap := range []func(io.Reader) io.Reader{iotest.OneByteReader, iotest.HalfReader, iotest.DataErrReader} {
				again := drain(t, NewReader(wrap(strings.NewReader(tc.in)), opts))
				if len(again) != len(got) {
					t.Fatalf("chunked read: %d entries, whole read %d", len(again), len(got))
				}
				for i := range got {
					if again[i] != got[i] {
						t.Errorf("chunked read entry %d: %v, whole read %v", i, again[i], got[i])
					}
				}
			}
		})
	}
}

func drain(t testing.TB, rd *Reader) []owned {
	t.Helper()
	var out []owned
	var e Entry
	for {
		err := rd.Next(&e)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, own(&e))
	}
}

func msgs(ms ...string) []owned {
	out := make([]owned, len(ms))
	for i, m := range ms {
		out[i].Message = m
	}
	return out
}

func TestReaderRaw(t *testing.T) {
	runCases(t, Raw, []readerCase{
		{name: "lines", in: "a\nb\n", want: msgs("a", "b")},
		{name: "empty input", in: ""},
		{name: "blank lines are entries", in: "\n\n", want: msgs("", "")},
		{name: "CRLF and no final newline", in: "a\r\nb\r", want: msgs("a", "b")},
		{name: "inner CR kept", in: "a\rb\n", want: msgs("a\rb")},
		{name: "NUL and invalid UTF-8", in: "a\x00b\xff\xfe\n\x1b[1;36mc\n", want: msgs("a\x00b\xff\xfe", "\x1b[1;36mc")},
		{name: "exactly the limit", in: "abcd\nxy\n", max: 4, want: msgs("abcd", "xy")},
		{name: "over the limit", in: "abcde\nxy\n", max: 4, want: msgs("abcd", "xy"), trunc: 1},
		{name: "far over the limit", in: strings.Repeat("z", 100) + "\nxy\n", max: 4, want: msgs("zzzz", "xy"), trunc: 1},
		{name: "long final line", in: "xy\n" + strings.Repeat("z", 100), max: 4, want: msgs("xy", "zzzz"), trunc: 1},
	})
}

func TestReaderRawLongLines(t *testing.T) {
	mib := strings.Repeat("m", 1<<20)
	in := "a\n" + mib + "\n" + mib + mib + "\nb\n"
	got, st, _ := readAll(t, []byte(in), ReaderOptions{Shape: Raw})
	if len(got) != 4 || got[0].Message != "a" || got[1].Message != mib || got[3].Message != "b" {
		t.Fatalf("got %d entries", len(got))
	}
	if len(got[2].Message) != DefaultMaxLineBytes || st.Truncated != 1 {
		t.Errorf("2 MiB line: %d bytes kept, truncated %d", len(got[2].Message), st.Truncated)
	}
}

// Memory stays bounded by the limit however long a line is: the reader must not buffer it.
func TestReaderRawBoundedMemory(t *testing.T) {
	rd := NewReader(io.MultiReader(
		strings.NewReader("a\n"), io.LimitReader(repeatReader('x'), 64<<20), strings.NewReader("\nb\n"),
	), ReaderOptions{Shape: Raw, MaxLineBytes: 1000})
	got := drain(t, rd)
	if len(got) != 3 || len(got[1].Message) != 1000 || got[2].Message != "b" {
		t.Fatalf("got %d entries", len(got))
	}
	if len(rd.buf) > PeekSize {
		t.Errorf("buffer grew to %d bytes", len(rd.buf))
	}
}

type repeatReader byte

func (c repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

func TestReaderReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	rd := NewReader(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)),
		ReaderOptions{Shape: Raw, Name: "engine.log"})
	var e Entry
	for _, want := range []string{"a", "b"} {
		if err := rd.Next(&e); err != nil || string(e.Message) != want {
			t.Fatalf("Next = %v %q, want %q: data before an error comes first", err, e.Message, want)
		}
	}
	err := rd.Next(&e)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "engine.log") {
		t.Fatalf("Next = %v, want the read error naming the input", err)
	}
	if err2 := rd.Next(&e); !errors.Is(err2, boom) {
		t.Errorf("error not sticky: %v", err2)
	}
}

func TestReaderNoProgress(t *testing.T) {
	rd := NewReader(emptyReader{}, ReaderOptions{Shape: Raw})
	var e Entry
	if err := rd.Next(&e); !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("Next = %v, want io.ErrNoProgress", err)
	}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// Next overwrites every field: nothing of a previous entry, from any shape, survives.
func TestReaderOverwritesEntry(t *testing.T) {
	e := Entry{Time: 7, Host: []byte("h"), Unit: []byte("u"), Cursor: []byte("c")}
	rd := NewReader(strings.NewReader("x\n"), ReaderOptions{})
	if err := rd.Next(&e); err != nil || own(&e) != (owned{Message: "x"}) {
		t.Fatalf("Next = %v, %v", err, own(&e))
	}
}

func TestZeroAllocsPerEntry(t *testing.T) {
	for _, name := range []string{"journal.short-iso", "journal-all.json", "journal.json", "journal.export"} {
		data := fixture(t, name)
		rd := NewReader(&loopReader{data: data}, ReaderOptions{})
		var e Entry
		for range 100 { // warm up: buffers reach their working size
			if err := rd.Next(&e); err != nil {
				t.Fatal(err)
			}
		}
		allocs := testing.AllocsPerRun(1000, func() {
			if err := rd.Next(&e); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per entry", name, allocs)
		}
	}
}

// loopReader repeats data forever, for steady-state measurements.
type loopReader struct {
	data []byte
	off  int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p, l.data[l.off:])
	l.off = (l.off + n) % len(l.data)
	return n, nil
}
