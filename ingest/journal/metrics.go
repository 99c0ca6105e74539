package journal

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/specwatch/specwatch/ingest"
)

// Metered is a Source that is also the prometheus.Collector of its counters (docs/metrics.md,
// "Journal source"): the daemon registers it while it follows a journal. Lifecycle: as the
// Source it wraps; Describe and Collect may be called from any goroutine, at any time.
type Metered struct {
	Source
	mu sync.Mutex
	st Stats // as the reader last left them
	ok bool  // published at least once
}

// WithMetrics wraps src so that its counters can be exported while one goroutine reads it:
// every Next and Close publishes Stats (a copy of a few integers) for Collect.
func WithMetrics(src Source) *Metered { return &Metered{Source: src} }

// Next is the Source's, then publishes its counters.
func (m *Metered) Next(e *ingest.Entry, wait time.Duration) (bool, error) {
	ok, err := m.Source.Next(e, wait)
	m.publish()
	return ok, err
}

// Close is the Source's, after publishing its last counters.
func (m *Metered) Close() error {
	m.publish()
	return m.Source.Close()
}

func (m *Metered) publish() {
	st := m.Source.Stats()
	m.mu.Lock()
	m.st, m.ok = st, true
	m.mu.Unlock()
}

// Descriptors of the journal reader's counters: why data is missing or was read twice.
var (
	reopensDesc = prometheus.NewDesc("specwatch_journal_reopens_total",
		"Recoveries of the journal reader after a read error, a journald restart or a journalctl exit; reading continued after the last entry read.",
		nil, nil)
	cursorMissingDesc = prometheus.NewDesc("specwatch_journal_cursor_missing_total",
		"Resumptions whose last entry read no longer existed (vacuumed while specwatch was down or behind): lines between were lost. Their size is specwatch_journal_lost_entries_total.",
		nil, nil)
	lostEntriesDesc = prometheus.NewDesc("specwatch_journal_lost_entries_total",
		"Journal entries, of every unit, between a vanished position and the next entry read (from the cursors' sequence numbers): an upper bound on the followed units' lost lines.",
		nil, nil)
	skippedDesc = prometheus.NewDesc("specwatch_journal_skipped_entries_total",
		"Journal entries skipped: duplicate (already applied, after a reopen) or unreadable (fields could not be read).",
		[]string{"reason"}, nil)
	badFilesDesc = prometheus.NewDesc("specwatch_journal_bad_files_total",
		"Journal files found unreadable (truncated, not a journal file) and skipped.",
		nil, nil)
)

// Describe sends the journal reader's descriptors.
func (m *Metered) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{reopensDesc, cursorMissingDesc, lostEntriesDesc, skippedDesc, badFilesDesc} {
		ch <- d
	}
}

// Collect sends the counters last published; nothing before the first Next.
func (m *Metered) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	st, ok := m.st, m.ok
	m.mu.Unlock()
	if !ok {
		return
	}
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	counter(reopensDesc, st.Reopens)
	counter(cursorMissingDesc, st.CursorMissing)
	counter(lostEntriesDesc, st.LostEntries)
	counter(skippedDesc, st.Duplicates, "duplicate")
	counter(skippedDesc, st.Unreadable, "unreadable")
	counter(badFilesDesc, st.BadFiles)
}
