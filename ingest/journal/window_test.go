package journal

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// The warm-up window is the matched entries from the cursor's time minus the span up to and
// including the cursor's entry, with every backend; entries of other units, and entries after
// the cursor (in the same file and in a second one, another writer's), are not in it.
func TestWindowEndsAtTheCursor(t *testing.T) {
	dir := t.TempDir()
	epoch := testjournal.FixtureEpoch
	gen := func(from int) func(i int, e *testjournal.Entry) {
		return func(i int, e *testjournal.Entry) {
			n := from + i/2
			e.Time, e.Host, e.Identifier = epoch.Add(time.Duration(n)*time.Minute+time.Duration(i%2)*time.Second), "gpu01", "python3"
			e.Unit, e.Message = "sglang.service", fmt.Appendf(nil, "line %d", n)
			if i%2 == 1 {
				e.Unit, e.Message = "other.service", []byte("GET / 200")
			}
		}
	}
	testjournal.BuildFileFunc(t, dir, 2*100, gen(0))
	testjournal.BuildFileFunc(t, dir, 2*20, gen(100)) // after the cursor, another file
	journalBackends(t, func(t *testing.T, b Backend) {
		opts := Options{Dir: dir, Units: []string{"sglang.service"}, Backend: b}
		// The cursor of line 60, as the daemon would have saved it.
		src := openJ(t, Options{Dir: dir, Units: opts.Units, Backend: b, Start: Head()})
		var cursor string
		for cursor == "" {
			var e ingest.Entry
			ok, err := src.Next(&e, time.Second)
			if err != nil || !ok {
				t.Fatalf("reading to line 60: ok %v, %v", ok, err)
			}
			if string(e.Message) == "line 60" {
				cursor = string(e.Cursor)
			}
		}
		w, err := OpenWindow(opts, cursor, 30*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		var got []string
		for {
			var e ingest.Entry
			ok, err := w.Next(&e, time.Second)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil || !ok {
				t.Fatalf("after %d entries: ok %v, %v", len(got), ok, err)
			}
			got = append(got, string(e.Message))
		}
		if len(got) != 31 || got[0] != "line 30" || got[30] != "line 60" {
			t.Errorf("window %d entries %q … %q, want 31: line 30 … line 60", len(got), first(got), last(got))
		}
		if !w.End().Equal(epoch.Add(60 * time.Minute)) {
			t.Errorf("window end %v, want line 60's time", w.End())
		}
	})
	if _, err := OpenWindow(Options{Dir: dir}, "not a cursor", time.Hour); !errors.Is(err, ErrNoWindow) {
		t.Errorf("a cursor without a time: %v, want ErrNoWindow", err)
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}
