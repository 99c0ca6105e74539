//go:build linux

package journalctl

import (
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
)

// TestJournalctlKilled: journalctl dying mid-stream (killed twice) is restarted after the
// last cursor returned: nothing lost, nothing twice, two reopens counted and reported.
func TestJournalctlKilled(t *testing.T) {
	const n = 3000
	j := journaltest.StartJournald(t)
	var warned []string
	src := openJ(t, backend.Options{Dir: j.Dir(), Units: []string{"sglang.service"},
		Warn: func(m string) { warned = append(warned, m) }})
	errc := journaltest.StreamLines(j, n, 5*time.Millisecond, false)
	var got []journaltest.Owned
	var e ingest.Entry
	deadline := time.Now().Add(time.Minute)
	kills := 0
	for len(got) < n && time.Now().Before(deadline) {
		ok, err := src.Next(&e, 200*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		got = append(got, journaltest.Own(&e))
		// Kill the journalctl running now. After the first kill, entries it had already
		// written to the pipe are still being read (a loaded machine read 1,000 of them):
		// the second kill waits for its successor, or it would hit the dead one.
		if p := src.(*Source).p; kills < 2 && len(got) >= (kills+1)*n/3 && src.Stats().Reopens == int64(kills) && p != nil {
			p.cmd.Process.Signal(syscall.SIGKILL)
			kills++
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	// When the stream outruns the kills, the second journalctl may have printed every entry
	// before it was killed: its exit then comes after the last entry. Wait for it (and make
	// sure the restart brings nothing twice).
	for time.Now().Before(deadline) && src.Stats().Reopens < 2 {
		if ok, err := src.Next(&e, 200*time.Millisecond); err != nil {
			t.Fatal(err)
		} else if ok {
			got = append(got, journaltest.Own(&e))
		}
	}
	journaltest.CheckSequence(t, got, n)
	if st := src.Stats(); st.Reopens != 2 || len(warned) != 2 || st.Duplicates != 0 || st.CursorMissing != 0 {
		t.Fatalf("stats %+v, warnings %q", st, warned)
	}
}
