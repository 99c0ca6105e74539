package native

import (
	"testing"

	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/ingest/journal/sdjournal"
)

// openJ opens the backend named b (this one, or sdjournal to compare with) and closes it at the
// end of the test.
func openJ(t *testing.T, b string, o backend.Options) journaltest.Source {
	t.Helper()
	return journaltest.Open(t, o, func(o backend.Options) (journaltest.Source, error) {
		if b == sdjournal.Name {
			return sdjournal.Open(o, sdjournal.Options{})
		}
		return Open(o)
	})
}

// requireSD skips a comparison with libsystemd in a build without it.
func requireSD(t testing.TB) {
	t.Helper()
	if err := sdjournal.Available(); err != nil {
		t.Skipf("needs the sdjournal backend to compare with: %v", err)
	}
}
