package journal

import (
	"fmt"

	"github.com/specwatch/specwatch/ingest/journal/journalctl"
	"github.com/specwatch/specwatch/ingest/journal/native"
	"github.com/specwatch/specwatch/ingest/journal/sdjournal"
)

// Backend selects how a Source reads the journal: the first one tried; when it cannot open or
// gives up on the journal, Open's Source goes on with the others (Options.chain).
type Backend int

const (
	// Auto uses Native, which decodes every compression (zstd, LZ4, XZ), unless a journal file
	// has an incompatible flag it does not know (a format newer than systemd 252's); then
	// SDJournal when the binary was built with cgo and libsystemd.so.0 loads, and Journalctl
	// otherwise.
	Auto Backend = iota
	// SDJournal reads the journal files in process through libsystemd (package sdjournal;
	// needs cgo).
	SDJournal
	// Journalctl runs `journalctl -o export --follow` and parses its output (package
	// journalctl).
	Journalctl
	// Native reads the journal files itself (package native): no libsystemd, no mapped pages
	// in the RSS, no extra thread.
	Native
)

func (b Backend) String() string {
	switch b {
	case Auto:
		return "auto"
	case SDJournal:
		return sdjournal.Name
	case Journalctl:
		return journalctl.Name
	case Native:
		return native.Name
	}
	return fmt.Sprintf("Backend(%d)", int(b))
}

// ParseBackend reads a Backend from its String form, for flags and configuration files.
func ParseBackend(s string) (Backend, error) {
	for _, b := range []Backend{Auto, SDJournal, Journalctl, Native} {
		if s == b.String() {
			return b, nil
		}
	}
	return 0, fmt.Errorf("ingest: unknown journal backend %q (want auto, sdjournal, journalctl or native)", s)
}
