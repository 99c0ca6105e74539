// Package native reads systemd journal files itself: no libsystemd, no journalctl, no mapped
// pages in the RSS, no extra thread (systemd.io/JOURNAL_FILE_FORMAT; zstd-compressed fields
// decoded, XZ and LZ4 not). Linux only: elsewhere Open says so.
package native

// Name is the backend's name in Stats.Backend, flags and configuration.
const Name = "native"
