// Package transport frames the simulator's messages as the reader receives them: bare, under a
// docker compose prefix, or as journalctl prints a journal entry in each of its -o shapes. It
// knows nothing of engines or scenarios, so one message is framed the same way whoever wrote it;
// package sim re-exports Format and its values.
package transport

import "fmt"

// Format is the transport that carries the engines' lines to the reader.
type Format int

// Formats, named as journalctl's -o values where they are journalctl's.
const (
	FormatRaw    Format = iota // the process's own stdout, as in a redirected file
	FormatCat                  // journalctl -o cat: messages only, other units included
	FormatDocker               // docker compose logs: "vllm-1  | " before each line
	// FormatDockerTimestamps is docker compose logs -t: an RFC 3339 nanosecond UTC time after
	// the prefix.
	FormatDockerTimestamps
	FormatShort        // journalctl -o short
	FormatShortISO     // journalctl -o short-iso
	FormatShortPrecise // journalctl -o short-precise
	FormatJSON         // journalctl -o json
	FormatExport       // journalctl -o export
	numFormats
)

var formatNames = [numFormats]string{"raw", "cat", "docker", "docker-timestamps", "short",
	"short-iso", "short-precise", "json", "export"}

func (f Format) String() string {
	if !f.Valid() {
		return fmt.Sprintf("Format(%d)", int(f))
	}
	return formatNames[f]
}

// Valid reports whether f is one of the formats above, for checking a scenario.
func (f Format) Valid() bool { return f >= 0 && f < numFormats }

// Lookup is the inverse of Format.String; ok is false for an unknown name.
func Lookup(name string) (f Format, ok bool) {
	for i, n := range formatNames {
		if n == name {
			return Format(i), true
		}
	}
	return 0, false
}

// Formats lists every format, for tests and help texts.
func Formats() []Format {
	fs := make([]Format, numFormats)
	for i := range fs {
		fs[i] = Format(i)
	}
	return fs
}

// Journal reports whether the format is journalctl output, where other units' lines appear.
func (f Format) Journal() bool { return f >= FormatShort || f == FormatCat }

// Docker reports whether the format is docker compose output, where other services' lines appear.
func (f Format) Docker() bool { return f == FormatDocker || f == FormatDockerTimestamps }
