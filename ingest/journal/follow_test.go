package journal

import (
	"bytes"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
)

// TestJournalFollowExact: N lines written while following arrive exactly once, in order, with
// unit, host and message intact — binary messages too.
func TestJournalFollowExact(t *testing.T) {
	journalBackends(t, func(t *testing.T, b Backend) {
		j := journaltest.StartJournald(t)
		// Written before OpenJournal: a follow from the tail must not return these.
		j.Write("sglang.service", "python3", []byte("old line"))
		j.Sync()
		src := openJ(t, Options{Dir: j.Dir(), Backend: b, Units: []string{"sglang.service"}, Identifiers: []string{"llama-server"}})
		bin := []byte("\x1b[1;36m(APIServer)\x1b[0;0m bad \xff\xfe utf8, nul \x00, newline \n end")
		const n = 500
		go func() {
			for i := range n {
				switch i % 5 {
				case 0:
					j.Send("sglang.service", "python3", journaltest.Numbered("sglang", i))
				case 1:
					j.Send("", "llama-server", append(bytes.Clone(bin), journaltest.Numbered(" #", i)...))
				case 2:
					j.Send("other.service", "other", []byte("not matched"))
					j.Send("sglang.service", "python3", journaltest.Numbered("sglang", i))
				default:
					j.Send("sglang.service", "python3", journaltest.Numbered("sglang", i))
				}
			}
		}()
		got := journaltest.ReadN(t, src, n, 30*time.Second)
		journaltest.ExpectQuiet(t, src, 300*time.Millisecond)
		journaltest.CheckSequence(t, got, n)
		host := journaltest.Hostname(t)
		for i, o := range got {
			wantUnit := "sglang.service"
			if i%5 == 1 {
				wantUnit = "llama-server" // no _SYSTEMD_UNIT: the identifier stands in
				if !bytes.HasPrefix([]byte(o.Message), bin) {
					t.Fatalf("binary message %d read back as %q", i, o.Message)
				}
			}
			if o.Unit != wantUnit || o.Host != host || o.Cursor == "" || o.Time == 0 {
				t.Fatalf("entry %d: %v; want unit %q host %q, a cursor and a time", i, o, wantUnit, host)
			}
		}
		if st := src.Stats(); st.Entries != n || st.Backend != b.String() || st.CursorMissing != 0 || st.Duplicates != 0 {
			t.Fatalf("stats %+v", st)
		}
	})
}

// TestJournalTailWithNoMatchYet: following a unit that has logged nothing yet, several entries
// written at once all arrive (systemd 252 returns the last entry of a file after SeekTail).
func TestJournalTailWithNoMatchYet(t *testing.T) {
	journalBackends(t, func(t *testing.T, b Backend) {
		j := journaltest.StartJournald(t)
		j.Write("other.service", "other", []byte("unrelated"))
		j.Sync()
		src := openJ(t, Options{Dir: j.Dir(), Backend: b, Units: []string{"new.service"}})
		journaltest.ExpectQuiet(t, src, 100*time.Millisecond)
		for i := range 5 {
			j.Write("new.service", "x", journaltest.Numbered("new", i))
		}
		journaltest.CheckSequence(t, journaltest.ReadN(t, src, 5, 10*time.Second), 5)
	})
}

// TestJournalSinceAndAll: Since starts at the first entry at or after it; no matches reads
// every entry.
func TestJournalSinceAndAll(t *testing.T) {
	journalBackends(t, func(t *testing.T, b Backend) {
		j := journaltest.StartJournald(t)
		j.Write("a.service", "a", journaltest.Numbered("a", 0))
		j.Sync()
		since := time.Now()
		for i := 1; i <= 3; i++ {
			j.Write("a.service", "a", journaltest.Numbered("a", i))
		}
		j.Sync()
		src := openJ(t, Options{Dir: j.Dir(), Backend: b, Units: []string{"a.service"}, Start: Since(since)})
		got := journaltest.ReadN(t, src, 3, 10*time.Second)
		for i, o := range got {
			if journaltest.SeqOf(t, o.Message) != i+1 {
				t.Fatalf("since: entry %d is %q", i, o.Message)
			}
		}
		all := openJ(t, Options{Dir: j.Dir(), Backend: b, Start: Head()})
		got = journaltest.ReadN(t, all, 4, 10*time.Second) // plus journald's own "Journal started" lines
		if got[0].Unit != "systemd-journald" {
			t.Fatalf("without matches the first entry should be journald's own, got %v", got[0])
		}
	})
}
