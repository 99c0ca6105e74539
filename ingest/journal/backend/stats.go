package backend

// Stats counts what a journal source did, for metrics and "why is data missing".
type Stats struct {
	Backend string // the backend in use: "native", "sdjournal" or "journalctl"
	// Entries is the number of entries Next returned.
	Entries int64
	// Reopens counts recoveries: the journal reopened (sdjournal) or journalctl restarted
	// after an error or an unexpected exit, continuing after the last entry returned.
	Reopens int64
	// Recycles counts handles closed and reopened on purpose, to release libsystemd's file
	// mappings (sdjournal; see recycleFollow). Not a fault.
	Recycles int64
	// Invalidations counts SD_JOURNAL_INVALIDATE (sdjournal) or directory scans that found
	// files added or removed (native): rotation, vacuuming, a journald restart. Always zero for
	// journalctl.
	Invalidations int64
	// CursorMissing counts resumptions whose saved entry no longer existed (vacuumed while
	// nobody read, or a cursor of another journal): entries may have been lost there.
	CursorMissing int64
	// LostEntries is the size of those losses: for each, the journal entries (of every unit)
	// between the vanished entry and the next one read, from their cursors' sequence numbers.
	// An upper bound on the followed units' lost lines; a loss across a recreated journal (new
	// sequence number id) adds nothing here but still counts in CursorMissing.
	LostEntries int64
	// Duplicates counts entries skipped because they had been returned already (the saved
	// entry itself after a resume or reopen is not counted: skipping it is the protocol).
	Duplicates int64
	// Unreadable counts entries skipped because their fields could not be read (a corrupt
	// object, a broken export record).
	Unreadable int64
	// BadFiles counts journal files found unreadable (truncated, not a journal file);
	// libsystemd and journalctl skip them and read the others.
	BadFiles int64
	// Waits counts the times Next blocked waiting for the journal to change; an idle follow
	// adds about one per wait period, which is how idle wake-ups are measured.
	Waits int64
}
