//go:build !cgo || !linux

package sdjournal

import (
	"errors"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
)

// Without cgo there is no libsystemd: journal's auto choice uses another backend, and asking
// for this one is an error that says how to get it.
var errNoCgo = errors.New("ingest: the sdjournal backend needs a build with cgo on Linux (CGO_ENABLED=1, libsystemd-dev); use the journalctl backend")

// Source is not available in this build.
type Source struct{}

// Available says why this build has no sdjournal backend.
func Available() error { return errNoCgo }

// Open fails: this build has no sdjournal backend.
func Open(backend.Options, Options) (*Source, error) { return nil, errNoCgo }

func (*Source) Next(*ingest.Entry, time.Duration) (bool, error) { return false, errNoCgo }
func (*Source) Close() error                                    { return nil }
func (*Source) Stats() backend.Stats                            { return backend.Stats{Backend: Name} }
