package ingest

import (
	"bytes"

	"github.com/specwatch/specwatch/ingest/record"
)

// LlamaJSONL unwraps llama.cpp's --log-jsonl records,
// `{"type":"log","time":616319,"level":"info","msg":"srv  llama_server: listening on …\n"}`,
// to the message they carry and its time since the engine started. The records come inside
// any container (a file, a pipe, a journal entry's MESSAGE, a Docker or CRI record), so the
// pipeline unwraps every entry's message, whatever its source. Not safe for concurrent use.
type LlamaJSONL struct {
	rec     record.LlamaLine
	scratch record.LlamaScratch
}

// JSONLResult says what Unwrap made of a message.
type JSONLResult uint8

const (
	// NotJSONL: the message is not a --log-jsonl log record (most lines; also the other
	// record types, such as "fit_memory_breakdown", which are noise): read it as it is.
	NotJSONL JSONLResult = iota
	// Unwrapped: the message is the record's msg.
	Unwrapped
	// DamagedJSONL: a log record that does not decode (cut short, a msg that is not a
	// string, a time that is not a whole number of µs): count it as unreadable and skip it,
	// as its escaped text would only read as a damaged engine line.
	DamagedJSONL
)

// llamaHead is how llama.cpp begins every log record; a message that begins so but does not
// decode is a damaged record rather than some other JSON.
var llamaHead = []byte(`{"type":"log"`)

// Unwrap returns the record's msg, its trailing newline dropped and its escapes decoded, and
// its "time" in µs (-1 when it has none), when msg is a log record. The text is valid until the
// next call. Only a message that starts with '{' is decoded.
func (u *LlamaJSONL) Unwrap(msg []byte) (text []byte, micros int64, r JSONLResult) {
	if len(msg) == 0 || msg[0] != '{' {
		return msg, -1, NotJSONL
	}
	err := record.DecodeLlamaJSONL(msg, &u.rec, &u.scratch)
	isLog := err == nil && string(u.rec.Type) == "log"
	switch {
	case err != nil && bytes.HasPrefix(msg, llamaHead), isLog && !u.rec.HasMsg:
		return msg, -1, DamagedJSONL
	case !isLog:
		return msg, -1, NotJSONL
	}
	text = u.rec.Msg
	if n := len(text); n > 0 && text[n-1] == '\n' {
		text = text[:n-1]
		if n > 1 && text[n-2] == '\r' {
			text = text[:n-2]
		}
	}
	micros = -1
	if u.rec.HasTime {
		micros = u.rec.Time
	}
	return text, micros, Unwrapped
}
