package journal

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/specwatch/specwatch/ingest"
)

// countingSource is a reader whose every Next finds a duplicate and a reopen.
type countingSource struct{ st Stats }

func (c *countingSource) Next(*ingest.Entry, time.Duration) (bool, error) {
	c.st.Duplicates++
	c.st.Reopens++
	return true, nil
}
func (c *countingSource) Close() error { return nil }
func (c *countingSource) Stats() Stats { return c.st }

// TestMeteredCollect: nothing is exported before the first Next; a registry gathering on
// another goroutine while the reader counts (the race detector watches) ends with every count.
func TestMeteredCollect(t *testing.T) {
	m := WithMetrics(&countingSource{st: Stats{LostEntries: 1200, CursorMissing: 1}})
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	if n, err := testutil.GatherAndCount(reg); err != nil || n != 0 {
		t.Fatalf("before the first Next: %d metrics (%v), want none", n, err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 200 {
			if _, err := reg.Gather(); err != nil {
				t.Error(err)
			}
		}
	}()
	var e ingest.Entry
	for range 500 {
		m.Next(&e, 0)
	}
	wg.Wait()
	want := `
# HELP specwatch_journal_reopens_total Recoveries of the journal reader after a read error, a journald restart or a journalctl exit; reading continued after the last entry read.
# TYPE specwatch_journal_reopens_total counter
specwatch_journal_reopens_total 500
# HELP specwatch_journal_lost_entries_total Journal entries, of every unit, between a vanished position and the next entry read (from the cursors' sequence numbers): an upper bound on the followed units' lost lines.
# TYPE specwatch_journal_lost_entries_total counter
specwatch_journal_lost_entries_total 1200
# HELP specwatch_journal_skipped_entries_total Journal entries skipped: duplicate (already applied, after a reopen) or unreadable (fields could not be read).
# TYPE specwatch_journal_skipped_entries_total counter
specwatch_journal_skipped_entries_total{reason="duplicate"} 500
specwatch_journal_skipped_entries_total{reason="unreadable"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "specwatch_journal_reopens_total",
		"specwatch_journal_lost_entries_total", "specwatch_journal_skipped_entries_total"); err != nil {
		t.Error(err)
	}
}
