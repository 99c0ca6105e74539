// Package sdjournal reads the journal in process through libsystemd's sd-journal, with
// github.com/coreos/go-systemd/v22/sdjournal, which loads libsystemd with dlopen (a binary
// built here still starts on a host without it; Available says so). It needs cgo on Linux;
// other builds have a stub whose Open and Available say so.
//
// It is the fallback behind the native reader and the reference the tests compare it with,
// so simplicity comes before speed here: go-systemd (the package the design names, maintained
// by the systemd/CoreOS people and used by most Go programs that read the journal) replaced
// about 1,400 lines of our own cgo binding — a C thread owning the handle, batched C reads
// and a page trimmer. What that cost in CPU and memory is in docs/benchmarks.md.
package sdjournal

// Name is the backend's name in Stats.Backend, flags and configuration.
const Name = "sdjournal"

// Options are this backend's own; the zero value is the default. There are none left: the
// page trimmer that TrimAfter tuned went with the cgo binding (see docs/benchmarks.md).
type Options struct{}
