// Package native reads systemd journal files itself: no libsystemd, no journalctl, no mapped
// pages in the RSS, no extra thread (systemd.io/JOURNAL_FILE_FORMAT; zstd, LZ4 and XZ fields
// decoded), reading what libsystemd 252 reads, damage included (diff_test.go checks it). Linux
// only: elsewhere Open says so.
package native

// Name is the backend's name in Stats.Backend, flags and configuration.
const Name = "native"
