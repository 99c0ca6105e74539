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

// ctlFieldMax bounds a field of journalctl's export output: journald's own limit on a field
// (768 MiB, DATA_SIZE_MAX), so that every field libsystemd returns arrives whole (the reader's
// default, 1 MiB, cut longer ones and lost the records of binary ones). The reader's buffer
// grows only as far as the longest field read.
const ctlFieldMax = 768 << 20
