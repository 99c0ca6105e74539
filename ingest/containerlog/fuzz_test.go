package containerlog

import (
	"bytes"
	"testing"
)

// FuzzDecode feeds arbitrary records in every format: the decoder must never panic, never
// return a line longer than its bound, and count every record it returns nothing for as bad,
// partial, blank or cut — never lose track.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"log":"[2026-11-20 09:00:00 TP0] Decode batch\n","stream":"stderr","time":"2026-11-20T09:00:00.1Z"}`,
		`{"log":"part","stream":"stdout","time":"2026-11-20T09:00:00Z"}` + "\n" + `{"log":"rest\n","stream":"stdout","time":"2026-11-20T09:00:00Z"}`,
		"2026-11-20T09:00:00.123456789Z stderr P abc\n2026-11-20T09:00:00Z stderr F def",
		"2026-11-20T11:00:00.000000000+02:00 stdout F x",
		`{"log":"\u003c\ud83d\ude00\"","time":"2026-11-20T09:00:00Z","attrs":{"a":[1,{"b":null}]}}`,
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		const bound = 64
		for _, format := range []Format{DockerJSON, CRI, Plain, Sniff(firstLine(data))} {
			d := NewDecoder(format, bound)
			var off int64
			for rec := range bytes.SplitSeq(data, []byte{'\n'}) {
				l, ok := d.Decode(rec, off)
				off += int64(len(rec)) + 1
				if ok && format != Plain && len(l.Msg) > bound && !bytes.Equal(l.Msg, trimCR(rec)) {
					// A single record may exceed the bound (the file reader bounds those);
					// a joined line may not.
					if d.Stats().Joined > 0 {
						t.Fatalf("joined line of %d bytes past the bound", len(l.Msg))
					}
				}
				if ok && l.Stream != Stdout && l.Stream != Stderr {
					t.Fatalf("stream %d", l.Stream)
				}
			}
			for range 3 {
				d.Flush()
			}
			st := d.Stats()
			if st.Lines < 0 || st.Bad < 0 || st.Cut < 0 || st.Joined > st.Lines {
				t.Fatalf("stats %+v", st)
			}
		}
		if mode&1 == 1 {
			ParseTime(data)
		}
	})
}

func firstLine(b []byte) []byte {
	if k := bytes.IndexByte(b, '\n'); k >= 0 {
		return b[:k]
	}
	return b
}
