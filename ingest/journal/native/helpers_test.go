package native

import (
	"testing"

	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/ingest/journal/sdjournal"
)

// open opens the backend named b: this one, or sdjournal to compare with. On error the Source
// is not to be used.
func open(b string, o backend.Options) (journaltest.Source, error) {
	if b == sdjournal.Name {
		return sdjournal.Open(o, sdjournal.Options{})
	}
	return Open(o)
}

// openJ opens a source and closes it at the end of the test; warnings go to the test log.
func openJ(t *testing.T, b string, o backend.Options) journaltest.Source {
	t.Helper()
	journaltest.LogWarnings(t, &o)
	src, err := open(b, o)
	return journaltest.Opened(t, src, err)
}

func requireSD(t *testing.T) {
	t.Helper()
	if err := sdjournal.Available(); err != nil {
		t.Skipf("needs the sdjournal backend to compare with: %v", err)
	}
}
