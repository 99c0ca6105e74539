//go:build !linux

package native

import (
	"errors"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/backend"
)

var errNotLinux = errors.New("ingest: the native journal backend reads journal files on Linux only")

// Source is not available on this OS.
type Source struct{}

// Open fails: journal files exist on Linux only.
func Open(backend.Options) (*Source, error) { return nil, errNotLinux }

// ReadsAll is false: there is nothing to read here.
func ReadsAll(string, string) bool { return false }

func (*Source) Next(*ingest.Entry, time.Duration) (bool, error) { return false, errNotLinux }
func (*Source) Close() error                                    { return nil }
func (*Source) Stats() backend.Stats                            { return backend.Stats{Backend: Name} }
