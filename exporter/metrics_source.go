package exporter

import (
	"sync"
	"time"

	"github.com/specwatch/specwatch/model"
)

// Source is what the exporter reads: the scrape collector calls Snapshot and Status on every
// gather (each /metrics request and each push), on the gatherer's goroutine, while the pipeline
// keeps applying entries; it never holds what they return past the gather. Implementations must
// be safe for concurrent use and return copies, so that nothing the exporter holds aliases the
// model. The Source must outlive the Metrics built on it: a gather may run until the server and
// the pusher have stopped. Locked is the pipeline's implementation; the HTTP server reads its
// own interface, web.Source.
type Source interface {
	// Snapshot appends a copy of every series to dst[:0] and returns it (model.Set.Snapshot).
	Snapshot(dst []model.SeriesSnapshot) []model.SeriesSnapshot
	// Status is the process-level state of ingestion.
	Status() Status
}

// Status is the process-level state of ingestion, as the pipeline sees it. It feeds the
// process-level metrics (specwatch_lines_total, specwatch_series_dropped_total,
// specwatch_journal_lag_seconds, specwatch_cursor_save_failures_total) and /-/ready.
type Status struct {
	// Input accounts for every line read (model.Set.Input): lines_total{result} comes from it.
	Input model.InputCounts
	// Overflow counts samples dropped because the model's series cap was reached
	// (model.Set.Overflow): part of specwatch_series_dropped_total.
	Overflow int64
	// LastEntry is the journal (realtime) timestamp of the latest entry applied; zero before
	// the first.
	LastEntry time.Time
	// JournalLag is how far ingestion is behind the journal: zero while the reader is at the
	// journal's tail, else now − LastEntry. HasJournalLag is false where lag means nothing
	// (files, stdin, the demo); specwatch_journal_lag_seconds is then absent.
	JournalLag    time.Duration
	HasJournalLag bool
	// CaughtUp is sticky: the reader has reached the end of what the journal held at least once
	// since start, so the figures describe the present. /-/ready follows it by default.
	CaughtUp bool
	// CursorSaveFailures counts failed cursor writes: a restart would re-read entries (their
	// effects are counted twice) until a save succeeds again.
	CursorSaveFailures int64
	// Journal is what the journal reader counted; HasJournal is false for files, stdin and
	// the demo, and the specwatch_journal_*_total counters are then absent.
	Journal    JournalCounts
	HasJournal bool
}

// JournalCounts are the journal reader's counters (ingest.JournalStats) that tell an operator
// why data is missing or was read twice. The exporter does not import ingest: the pipeline
// copies them in.
type JournalCounts struct {
	Reopens       int64 // recoveries after a read error or a journalctl exit
	CursorMissing int64 // resumptions whose entry had been vacuumed: a loss
	LostEntries   int64 // the losses' size: journal entries (all units) in the gaps
	Duplicates    int64 // entries skipped because they had been applied already
	Unreadable    int64 // entries skipped because their fields could not be read
	BadFiles      int64 // journal files found unreadable and skipped
}

// Locked is the pipeline's Source, and web.Source too: the pipeline owns Set and holds Mu while it applies entries
// and while it writes the fields below; every method here takes Mu, copies, and releases it,
// so a scrape holds the pipeline up for the duration of one copy and never for an encoding or
// a slow client. The zero value is not usable: Set must be set before the first call.
type Locked struct {
	Mu  sync.Mutex
	Set *model.Set

	// Written by the pipeline while it holds Mu.
	LastEntry          time.Time // journal timestamp of the latest entry applied
	AtTail             bool      // the reader has nothing more to read right now
	CaughtUp           bool      // AtTail was true at least once (sticky; readiness)
	Live               bool      // input is a journal being followed, so lag is meaningful
	CursorSaveFailures int64
	Journal            JournalCounts
	HasJournal         bool // Journal is meaningful: the input is a journal

	// Now is the clock for the journal lag; nil means time.Now. Tests inject a fixed one.
	Now func() time.Time
}

var _ Source = (*Locked)(nil)

// Snapshot copies every series under Mu.
func (l *Locked) Snapshot(dst []model.SeriesSnapshot) []model.SeriesSnapshot {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	return l.Set.Snapshot(dst)
}

// Report builds the report under Mu; model.Set.Report returns freshly allocated values.
func (l *Locked) Report() model.Report {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	return l.Set.Report()
}

// Plots copies the plot data under Mu.
func (l *Locked) Plots() []model.SeriesPlot {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	return l.Set.Plots()
}

// Status reads the counters and the pipeline's fields under Mu; the clock is read after the
// lock is released so that a slow clock (none is) could not stretch the critical section.
func (l *Locked) Status() Status {
	l.Mu.Lock()
	st := Status{
		Input:              l.Set.Input(),
		Overflow:           l.Set.Overflow(),
		LastEntry:          l.LastEntry,
		CaughtUp:           l.CaughtUp,
		CursorSaveFailures: l.CursorSaveFailures,
		Journal:            l.Journal,
		HasJournal:         l.HasJournal,
	}
	atTail, live := l.AtTail, l.Live
	l.Mu.Unlock()
	if live && !st.LastEntry.IsZero() {
		st.HasJournalLag = true
		if !atTail {
			now := time.Now
			if l.Now != nil {
				now = l.Now
			}
			st.JournalLag = max(now().Sub(st.LastEntry), 0)
		}
	}
	return st
}
