package analyze

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/pipeline"
)

// sinceStartAnchor says where analyze puts one input's since-start stamps (llama.cpp's
// "0.05.071.041", --log-jsonl's "time"), which say how long after the engine started a line was
// written but not when (docs/formats.md, "Time"):
//
//   - --start-time, when given, is the engine's start;
//   - else a file's last since-start line is at its modification time, and its first run
//     started the stamps' span before (read from the whole file, and only when its head or
//     tail has such a line: restarts make the span more than the last stamp);
//   - else (standard input) each line is at the time analyze read it.
type sinceStartAnchor struct {
	origin time.Time // zero: by arrival
	how    string    // for the note, with origin
}

// endChunk is how much of a file's head and tail decide whether it has since-start stamps.
const endChunk = 64 << 10

func (a *Analysis) sinceStartAnchor(path string, modified time.Time, stated bool) sinceStartAnchor {
	switch {
	case !a.o.StartTime.IsZero():
		return sinceStartAnchor{origin: a.o.StartTime, how: "counted from " + rfc3339(a.o.StartTime) + " (--start-time)"}
	case !stated || !endsSinceStart(path):
		return sinceStartAnchor{}
	}
	in, err := ingest.Open(path)
	if err != nil {
		return sinceStartAnchor{} // the main pass names the error
	}
	defer in.Close()
	c, err := pipeline.SinceStartSpan(ingest.NewReader(in, ingest.ReaderOptions{Name: path}))
	if err != nil || c.Lines == 0 {
		return sinceStartAnchor{}
	}
	return sinceStartAnchor{origin: modified.Add(-time.Duration(c.Elapsed()) * time.Microsecond),
		how: "anchored at " + rfc3339(modified) + " (the file's modification time at its last line)"}
}

// endsSinceStart reports whether the first or the last endChunk bytes of path (the first
// decompressed, the last only of a file that is not compressed) hold a since-start line.
func endsSinceStart(path string) bool {
	in, err := ingest.Open(path)
	if err != nil {
		return false
	}
	head, _ := io.ReadAll(io.LimitReader(in, endChunk))
	in.Close()
	if pipeline.HasSinceStart(head) {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	magic := make([]byte, 2)
	if _, merr := f.ReadAt(magic, 0); err != nil || merr != nil || fi.Size() <= endChunk || bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		return false // all of it was in the head, or compressed: no cheap tail
	}
	tail := make([]byte, endChunk)
	n, _ := f.ReadAt(tail, fi.Size()-endChunk)
	tail = tail[:n]
	if k := bytes.IndexByte(tail, '\n'); k >= 0 {
		tail = tail[k+1:] // the first line is cut
	}
	return pipeline.HasSinceStart(tail)
}

// noteSinceStart tells (Options.Note) where an input's since-start stamps were put, when it
// had any: the report's times depend on it.
func (a *Analysis) noteSinceStart(path string, an sinceStartAnchor) {
	st := a.feed.SinceStart()
	if st.Lines == 0 {
		return
	}
	how := an.how
	switch {
	case an.origin.IsZero() && path == "-":
		how = "anchored at the time analyze read each line (standard input has no modification time; --start-time sets when the engine started)"
	case an.origin.IsZero():
		how = "anchored at the time analyze read each line (none at the file's start or end; --start-time sets when the engine started)"
	}
	switch {
	case st.Restarts == 1:
		how += "; the engine restarted once, its new run placed right after the last line before it"
	case st.Restarts > 1:
		how += fmt.Sprintf("; the engine restarted %d times, each run placed right after the last line before it", st.Restarts)
	}
	a.o.Note(fmt.Sprintf("%s: llama.cpp since-start stamps %s", path, how))
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }
