//go:build linux

package journalctl

import (
	"testing"

	"github.com/specwatch/specwatch/ingest/journal/backend"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
)

// openJ opens a source and closes it at the end of the test; warnings go to the test log.
func openJ(t *testing.T, o backend.Options) journaltest.Source {
	t.Helper()
	return journaltest.Open(t, o, func(o backend.Options) (journaltest.Source, error) { return Open(o, Options{}) })
}
