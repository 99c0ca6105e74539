package daemon

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
	"github.com/rs/zerolog/journald"
)

// NewLogger builds specwatch's own logger (the one logger: zerolog; web's slog handler writes
// through it). "auto" writes natively to the journal (structured
// fields, priorities) when systemd connected stderr to it, a console format on a terminal, and
// JSON otherwise (containers, log shippers). The returned LevelWriter is where the level
// lives: SIGHUP changes it for every copy of the logger at once.
func NewLogger(level, format string, stderr io.Writer) (zerolog.Logger, *LevelWriter, error) {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil {
		return zerolog.Nop(), nil, fmt.Errorf("log level %q: %w", level, err)
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
	lw := &LevelWriter{w: w}
	lw.SetLevel(lvl)
	return zerolog.New(lw).Level(zerolog.DebugLevel).With().Timestamp().Logger(), lw, nil
}

// LevelWriter drops events below its level. zerolog's Level() returns an independent copy, and
// the pipeline, the journal reader's warnings and the HTTP server's slog handler each hold one
// taken at start, so a reload that set the level on its own copy changed nothing else. The
// loggers pass everything from debug up and the one shared writer decides; specwatch logs
// little at debug, so the events built only to be dropped cost nothing measurable.
type LevelWriter struct {
	w     io.Writer
	level atomic.Int32
}

// SetLevel takes effect for the next event of every logger writing here.
func (l *LevelWriter) SetLevel(lvl zerolog.Level) { l.level.Store(int32(lvl)) }

func (l *LevelWriter) Write(p []byte) (int, error) { return l.w.Write(p) }

// WriteLevel is what zerolog calls: events without a level (NoLevel) always pass.
func (l *LevelWriter) WriteLevel(lvl zerolog.Level, p []byte) (int, error) {
	if lvl < zerolog.Level(l.level.Load()) {
		return len(p), nil
	}
	if lw, ok := l.w.(zerolog.LevelWriter); ok {
		return lw.WriteLevel(lvl, p)
	}
	return l.w.Write(p)
}
