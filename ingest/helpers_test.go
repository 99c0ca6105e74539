package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// owned is an Entry copied out of the reader's buffers, comparable with ==.
type owned struct {
	Time                        int64
	Host, Unit, Message, Cursor string
}

func own(e *Entry) owned {
	return owned{e.Time, string(e.Host), string(e.Unit), string(e.Message), string(e.Cursor)}
}

// readAll drains a reader over data and checks the invariants every shape keeps.
func readAll(tb testing.TB, data []byte, opts ReaderOptions) ([]owned, Stats, Shape) {
	tb.Helper()
	rd := NewReader(bytes.NewReader(data), opts)
	max := opts.MaxLineBytes
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	var out []owned
	var e Entry
	for calls := 0; ; calls++ {
		if calls > len(data)+2 {
			tb.Fatalf("more entries than bytes: reader does not progress")
		}
		err := rd.Next(&e)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			tb.Fatalf("Next: %v", err)
		}
		for _, f := range [][]byte{e.Host, e.Unit, e.Message, e.Cursor} {
			if len(f) > max {
				tb.Fatalf("field of %d bytes exceeds MaxLineBytes %d", len(f), max)
			}
		}
		out = append(out, own(&e))
	}
	if err := rd.Next(&e); !errors.Is(err, io.EOF) {
		tb.Fatalf("Next after EOF = %v, want io.EOF again", err)
	}
	st := rd.Stats()
	if st.Entries != int64(len(out)) {
		tb.Fatalf("Stats.Entries = %d, returned %d", st.Entries, len(out))
	}
	if st.Bytes != int64(len(data)) {
		tb.Fatalf("Stats.Bytes = %d, input %d", st.Bytes, len(data))
	}
	if st.Bad < 0 || st.Truncated < 0 || st.NullMessages < 0 || st.NullMessages > st.Entries {
		tb.Fatalf("inconsistent stats %+v", st)
	}
	return out, st, rd.Shape()
}

func fixture(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func (o owned) String() string {
	return fmt.Sprintf("{t=%d host=%q unit=%q msg=%.200q cursor=%q}", o.Time, o.Host, o.Unit, o.Message, o.Cursor)
}
