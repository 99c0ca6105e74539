package daemon

import (
	"context"
	"log/slog"

	"github.com/rs/zerolog"
)

// slogHandler writes the HTTP server's slog records through the one zerolog logger, with one
// field name per concept: an error is always zerolog.ErrorFieldName ("error"), as Err writes
// it, where slog callers conventionally write "err".
type slogHandler struct{ slog.Handler }

func newSlog(log zerolog.Logger) *slog.Logger {
	return slog.New(slogHandler{zerolog.NewSlogHandler(log)})
}

func errorKey(a slog.Attr) slog.Attr {
	if a.Key == "err" {
		a.Key = zerolog.ErrorFieldName
	}
	return a
}

func (h slogHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(errorKey(a))
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h slogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	renamed := make([]slog.Attr, len(as))
	for i, a := range as {
		renamed[i] = errorKey(a)
	}
	return slogHandler{h.Handler.WithAttrs(renamed)}
}

func (h slogHandler) WithGroup(name string) slog.Handler {
	return slogHandler{h.Handler.WithGroup(name)}
}
