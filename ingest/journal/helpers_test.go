package journal

import (
	"testing"

	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
)

// journalBackends are the backends every journal test runs with: journalctl and native always,
// sdjournal when this build has it (cgo). Each runs as a subtest named after it.
func journalBackends(t *testing.T, f func(t *testing.T, b Backend)) {
	t.Helper()
	for _, b := range []Backend{SDJournal, Journalctl, Native} {
		t.Run(b.String(), func(t *testing.T) {
			if b == SDJournal {
				if err := SDJournalAvailable(); err != nil {
					t.Skipf("sdjournal backend not in this build: %v", err)
				}
			}
			f(t, b)
		})
	}
}

// openJ opens a source and closes it at the end of the test; warnings go to the test log.
func openJ(t *testing.T, o Options) Source {
	t.Helper()
	if o.Warn == nil {
		o.Warn = func(m string) { t.Logf("warn: %s", m) }
	}
	src, err := Open(o)
	return journaltest.Opened(t, src, err)
}
