package enginelog

import (
	"time"

	"github.com/specwatch/specwatch/sim/internal/appendtext"
)

// AppendLlamaPrefix writes what llama.cpp's logger puts before a message at t: its time since
// the process started and the level, "0.05.071.041 I " (common/log.cpp's
// "%d.%02d.%03d.%03d": minutes, unbounded, then seconds, ms and µs), or under --log-jsonl the
// JSON object's head with the µs since the start. A bare line gets nothing.
func (w *Writer) AppendLlamaPrefix(b []byte, t time.Time, level byte) []byte {
	us := max(0, t.Sub(w.Started).Microseconds())
	if w.JSONL {
		b = append(b, `{"type":"log","time":`...)
		b = appendtext.Int(b, us)
		b = append(b, `,"level":"`...)
		b = append(b, jsonLevel(level)...)
		return append(b, `","msg":"`...)
	}
	if w.Prefix == PrefixBare {
		return b
	}
	b = appendtext.Int(b, us/60_000_000)
	b = append(b, '.')
	b = appendtext.Digits2(b, int(us/1_000_000%60))
	b = append(b, '.')
	b = appendDigits3(b, int(us/1000%1000))
	b = append(b, '.')
	b = appendDigits3(b, int(us%1000))
	return append(b, ' ', level, ' ')
}

// AppendLlamaSuffix closes a line AppendLlamaPrefix opened: under --log-jsonl the message keeps
// its newline, escaped, inside the object. The messages written here hold no character JSON
// must escape, so none is.
func (w *Writer) AppendLlamaSuffix(b []byte) []byte {
	if w.JSONL {
		return append(b, `\n"}`...)
	}
	return b
}

func jsonLevel(l byte) string {
	switch l {
	case 'W':
		return "warn"
	case 'E':
		return "error"
	case 'D':
		return "debug"
	}
	return "info"
}

func appendDigits3(b []byte, v int) []byte {
	return appendtext.Digits2(append(b, byte('0'+v/100%10)), v%100)
}
