//go:build cgo && linux

package sdjournal

import (
	"testing"

	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/ingest/journal/journalctl"
)

// open opens the backend named b: this one, or journalctl to compare with. On error the Source
// is not to be used.
func open(b string, o backend.Options) (journaltest.Source, error) {
	if b == journalctl.Name {
		return journalctl.Open(o, journalctl.Options{})
	}
	return Open(o, Options{})
}

// openJ opens a source and closes it at the end of the test; warnings go to the test log.
func openJ(t *testing.T, b string, o backend.Options) journaltest.Source {
	t.Helper()
	journaltest.LogWarnings(t, &o)
	src, err := open(b, o)
	return journaltest.Opened(t, src, err)
}
