package pipeline

import (
	"time"

	"github.com/specwatch/specwatch/model"
)

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
}
