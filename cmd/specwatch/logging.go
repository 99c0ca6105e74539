package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
	"github.com/rs/zerolog/journald"
)

// newLogger builds specwatch's own logger. "auto" writes natively to the journal (structured
// fields, priorities) when systemd connected stderr to it, a console format on a terminal, and
// JSON otherwise (containers, log shippers).
func newLogger(level, format string, stderr io.Writer) (zerolog.Logger, error) {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil {
		return zerolog.Nop(), fmt.Errorf("log level %q: %w", level, err)
	}
	if format == "auto" {
		switch {
		case os.Getenv("JOURNAL_STREAM") != "" && stderr == os.Stderr:
			format = "journald"
		case stderr == os.Stderr && isatty.IsTerminal(os.Stderr.Fd()):
			format = "console"
		default:
			format = "json"
		}
	}
	var w io.Writer = stderr
	switch format {
	case "journald":
		w = journald.NewJournalDWriter()
	case "console":
		w = zerolog.ConsoleWriter{Out: stderr, TimeFormat: time.DateTime}
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger(), nil
}
