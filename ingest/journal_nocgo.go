//go:build !cgo || !linux

package ingest

import "errors"

// Without cgo there is no libsystemd: BackendAuto uses journalctl, and asking for
// BackendSDJournal is an error that says how to get it.

var errNoCgo = errors.New("ingest: the sdjournal backend needs a build with cgo on Linux (CGO_ENABLED=1, libsystemd-dev); use the journalctl backend")

func sdJournalAvailable() error { return errNoCgo }

func openSDJournal(JournalOptions) (JournalSource, error) { return nil, errNoCgo }
