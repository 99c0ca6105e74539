// Package journalctl follows the journal through a `journalctl -o export --follow` subprocess,
// for hosts where neither the native reader nor libsystemd can read the files. Linux only:
// elsewhere Open says so.
package journalctl

// Name is the backend's name in Stats.Backend, flags and configuration.
const Name = "journalctl"

// Options are this backend's own; the zero value is the default.
type Options struct {
	// Path is the journalctl binary; "" means "journalctl" on PATH.
	Path string
}
