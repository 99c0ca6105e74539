//go:build !linux

package journalctl

import (
	"errors"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
)

var errNotLinux = errors.New("ingest: the journalctl backend runs on Linux only")

// Source is not available on this OS.
type Source struct{}

// Open fails: journalctl exists on Linux only.
func Open(backend.Options, Options) (*Source, error) { return nil, errNotLinux }

func (*Source) Next(*ingest.Entry, time.Duration) (bool, error) { return false, errNotLinux }
func (*Source) Close() error                                    { return nil }
func (*Source) Stats() backend.Stats                            { return backend.Stats{Backend: Name} }
