package journal

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

var errGaveUp = errors.New("ingest: giving up after 10 attempts: moving to the next entry: bad message")

// givesUp is a backend that fails on the journal after n entries, as a backend whose recovery
// gave up does: Next returns errGaveUp from then on.
type givesUp struct {
	Source
	n int
}

func (g *givesUp) Next(e *ingest.Entry, wait time.Duration) (bool, error) {
	if g.n == 0 {
		return false, errGaveUp
	}
	ok, err := g.Source.Next(e, wait)
	if ok {
		g.n--
	}
	return ok, err
}

// failing opens the backends of chain as Open does, but the first gives up after n entries
// (n < 0: it does not open).
func failing(t *testing.T, opts Options, chain []Backend, n int) (Source, *[]string) {
	t.Helper()
	warned := new([]string)
	opts.Warn = func(m string) { *warned = append(*warned, m); t.Logf("warn: %s", m) }
	src, err := openChain(opts, chain, func(b Backend, o Options) (Source, error) {
		if b != chain[0] {
			return openBackend(b, o)
		}
		if n < 0 {
			return nil, errors.New("ingest: cannot open it")
		}
		src, err := openBackend(b, o)
		if err != nil {
			return nil, err
		}
		return &givesUp{Source: src, n: n}, nil
	})
	return journaltest.Opened(t, src, err), warned
}

// readToEnd reads a NoFollow source to io.EOF; any other error fails the test.
func readToEnd(t *testing.T, src Source) []journaltest.Owned {
	t.Helper()
	var got []journaltest.Owned
	var e ingest.Entry
	for {
		ok, err := src.Next(&e, time.Second)
		if errors.Is(err, io.EOF) {
			return got
		}
		if err != nil || !ok {
			t.Fatalf("after %d entries: ok=%v err=%v", len(got), ok, err)
		}
		got = append(got, journaltest.Own(&e))
	}
}

// TestJournalFallback: a backend that gives up on a journal fails neither analyze (NoFollow)
// nor run (following) while another can read it. The next backend of the chain (here across
// implementations: native, then journalctl) reads on after the last entry returned, so every
// entry arrives once and in order; the change is one warning and one Reopens, and the counters
// carry over. A backend that cannot open the journal at all is passed over the same way.
func TestJournalFallback(t *testing.T) {
	dir := t.TempDir()
	testjournal.BuildFileFunc(t, dir, 100, journaltest.Lines(0, 100, "a.service"))
	head := Options{Dir: dir, Units: []string{"a.service"}, Start: Head(), NoFollow: true}
	chain := []Backend{Native, Journalctl}

	t.Run("gives up reading", func(t *testing.T) {
		src, warned := failing(t, head, chain, 40)
		journaltest.CheckSequence(t, readToEnd(t, src), 100)
		st := src.Stats()
		if st.Backend != Journalctl.String() || st.Entries != 100 || st.Reopens != 1 || st.Duplicates != 0 || st.CursorMissing != 0 {
			t.Fatalf("stats %+v; want journalctl, 100 entries, 1 reopen", st)
		}
		if w := *warned; len(w) != 1 || !strings.Contains(w[0], "native backend gave up") || !strings.Contains(w[0], "journalctl backend after cursor") {
			t.Fatalf("warnings %q", w)
		}
	})
	t.Run("gives up before any entry", func(t *testing.T) {
		src, _ := failing(t, head, chain, 0)
		journaltest.CheckSequence(t, readToEnd(t, src), 100)
	})
	t.Run("cannot open", func(t *testing.T) {
		src, warned := failing(t, head, chain, -1)
		journaltest.CheckSequence(t, readToEnd(t, src), 100)
		if st := src.Stats(); st.Backend != Journalctl.String() || st.Reopens != 0 || len(*warned) != 1 {
			t.Fatalf("stats %+v, warnings %q", st, *warned)
		}
	})
	t.Run("none left", func(t *testing.T) {
		src, _ := failing(t, head, chain[:1], 40)
		got := journaltest.ReadN(t, src, 40, 10*time.Second)
		journaltest.CheckSequence(t, got, 40)
		var e ingest.Entry
		if _, err := src.Next(&e, time.Second); !errors.Is(err, errGaveUp) {
			t.Fatalf("with no backend left: %v, want the backend's error", err)
		}
	})
	t.Run("following from the tail", func(t *testing.T) {
		// Nothing returned yet when the first backend gives up: the next starts at Open's
		// time, so what was written since arrives, and nothing from before.
		j := journaltest.StartJournald(t)
		j.Write("a.service", "a", []byte("before Open"))
		j.Sync()
		src, warned := failing(t, Options{Dir: j.Dir(), Units: []string{"a.service"}}, chain, 0)
		for i := range 20 {
			j.Write("a.service", "a", journaltest.Numbered("a", i))
		}
		journaltest.CheckSequence(t, journaltest.ReadN(t, src, 20, 20*time.Second), 20)
		journaltest.ExpectQuiet(t, src, 300*time.Millisecond)
		if st := src.Stats(); st.Backend != Journalctl.String() || len(*warned) != 1 {
			t.Fatalf("stats %+v, warnings %q", st, *warned)
		}
	})
}

// TestJournalChain: the fallbacks behind each choice. libsystemd in process comes last: on a
// damaged file it may abort the process, which a journalctl subprocess survives.
func TestJournalChain(t *testing.T) {
	sd := SDJournalAvailable() == nil
	for _, c := range []struct {
		b    Backend
		want []Backend
	}{
		{Native, []Backend{Native, Journalctl, SDJournal}},
		{Journalctl, []Backend{Journalctl, Native, SDJournal}},
		{SDJournal, []Backend{SDJournal, Native, Journalctl}},
	} {
		want := c.want
		if !sd {
			want = nil
			for _, b := range c.want {
				if b != SDJournal {
					want = append(want, b)
				}
			}
			if c.b == SDJournal {
				want = []Backend{SDJournal} // asked for by name: Open says it is not in this build
			}
		}
		o := Options{Dir: t.TempDir(), Backend: c.b}
		if got := o.chain(); !slices.Equal(got, want) {
			t.Errorf("%v: chain %v, want %v", c.b, got, want)
		}
	}
}
