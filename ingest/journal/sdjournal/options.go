// Package sdjournal reads the journal in process through libsystemd's sd-journal, loaded with
// dlopen (a binary built here still starts on a host without libsystemd.so.0). It needs cgo on
// Linux; other builds have a stub whose Open and Available say so.
package sdjournal

// Name is the backend's name in Stats.Backend, flags and configuration.
const Name = "sdjournal"

// Options are this backend's own; the zero value is the default.
type Options struct {
	// TrimAfter bounds the journal pages a follow keeps in the process's RSS: libsystemd maps
	// the journal files, and every page it read stays resident while mapped. Each time these
	// pages grew by TrimAfter bytes they are dropped from the RSS (not from the page cache).
	// Zero means DefaultTrimAfter; negative never drops them. Smaller costs CPU: the pages
	// still in use fault in again (see the README's benchmarks).
	TrimAfter int64
}

// DefaultTrimAfter is Options.TrimAfter's default: following 2,000 lines/s, the daemon's peak
// RSS stays under 30 MB (bench/live_test.go).
const DefaultTrimAfter = 4 << 20

// trimAfter resolves TrimAfter: 0 never trims.
func (o Options) trimAfter() int64 {
	switch {
	case o.TrimAfter == 0:
		return DefaultTrimAfter
	case o.TrimAfter < 0:
		return 0
	}
	return o.TrimAfter
}
