package parse

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sample"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current parser")

// render writes one line per input line: what it was, and for samples the series and fields.
// The golden files are the reviewable record of how every shape in testdata is read.
func render(in []byte) []byte {
	var out bytes.Buffer
	p := NewParser(Options{})
	st := NewStream(StreamOptions{Year: 2026, Location: time.UTC})
	sc := bufio.NewScanner(bytes.NewReader(in))
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine+1)
	n := 0
	for sc.Scan() {
		n++
		var s Record
		r := p.Parse(sc.Bytes(), &s)
		fmt.Fprintf(&out, "%d %s", n, r)
		switch r {
		case sample.Malformed:
			fmt.Fprintf(&out, " (%s)", s.Why)
		case sample.Matched:
			st.Resolve(0, nil, nil, &s)
			renderSample(&out, &s)
		}
		out.WriteByte('\n')
		take(&out, st)
	}
	st.Flush(math.MaxInt64) // the end of the input: requests whose release did not come
	take(&out, st)
	return out.Bytes()
}

// take renders the requests Stream held back (llama.cpp's, without their release line).
func take(out *bytes.Buffer, st *Stream) {
	var s Record
	for st.Take(&s) {
		out.WriteString("+ taken")
		renderSample(out, &s)
		out.WriteByte('\n')
	}
}

func renderSample(out *bytes.Buffer, s *Record) {
	fmt.Fprintf(out, " %s %s host=%q unit=%q rank=%q time=%s", s.Kind, s.Engine, s.Host, s.Unit, s.Rank,
		time.Unix(0, s.Time).UTC().Format(time.RFC3339Nano))
	if s.Event != sample.EventNone {
		fmt.Fprintf(out, " event=%s", s.Event)
	}
	for f := sample.Field(0); f < numFields; f++ {
		if v, ok := s.Get(f); ok {
			fmt.Fprintf(out, " %s=%g", f, v)
		}
	}
	if s.NPos > 0 {
		fmt.Fprintf(out, " per_position=%v", s.PerPos[:s.NPos])
	}
}

func TestGolden(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.log")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			in, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			got := render(in)
			gp := strings.TrimSuffix(p, ".log") + ".golden"
			if *update {
				if err := os.WriteFile(gp, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(gp)
			if err != nil {
				t.Fatalf("%v (run go test ./parse -run TestGolden -update)", err)
			}
			if !bytes.Equal(got, want) {
				gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
				for i := 0; i < len(gl) && i < len(wl); i++ {
					if gl[i] != wl[i] {
						t.Fatalf("line %d differs:\n got: %s\nwant: %s", i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("line count differs: got %d, want %d", len(gl), len(wl))
			}
		})
	}
}
