//go:build cgo && linux

package sdjournal

import (
	"testing"

	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/ingest/journal/journalctl"
)

// openJ opens the backend named b (this one, or journalctl to compare with) and closes it at the
// end of the test.
func openJ(t *testing.T, b string, o backend.Options) journaltest.Source {
	t.Helper()
	return journaltest.Open(t, o, func(o backend.Options) (journaltest.Source, error) {
		if b == journalctl.Name {
			return journalctl.Open(o, journalctl.Options{})
		}
		return Open(o, Options{})
	})
}
